import { decideRedelivery, redelivered } from './decide-redelivery';

describe('deciding a redelivery', () => {
  it('given a delivery id, when redelivered, then that one delivery goes again, whatever else is asked', () => {
    expect(decideRedelivery({ delivery_id: 12 })).toEqual({ deliveryId: 12 });
    expect(decideRedelivery({ delivery_id: 12, since: '2026-11-29T10:00:00' })).toEqual({ deliveryId: 12 });
  });

  it('given a time, when redelivered, then every failed delivery since then goes again, the time read as UTC', () => {
    expect(decideRedelivery({ since: '2026-11-29T10:00:00' })).toEqual({ since: new Date('2026-11-29T10:00:00Z') });
  });

  it('given neither, when redelivered, then it is refused', () => {
    expect(() => decideRedelivery({})).toThrow(
      expect.objectContaining({ refusal: 'delivery.deliveryIdOrSinceRequired', code: 'validation_failed' }),
    );
  });

  it('given what was queued again, when answered, then the count is told; one delivery named and not queued is not found', () => {
    expect(redelivered({ since: new Date() }, 0)).toEqual({ message: '0 webhook deliveries queued again', redelivered: 0 });
    expect(redelivered({ since: new Date() }, 3)).toEqual({ message: '3 webhook deliveries queued again', redelivered: 3 });
    expect(redelivered({ deliveryId: 12 }, 1)).toEqual({ message: '1 webhook deliveries queued again', redelivered: 1 });
    expect(() => redelivered({ deliveryId: 12 }, 0)).toThrow(
      expect.objectContaining({ refusal: 'delivery.deliveryNotFound', code: 'not_found' }),
    );
  });
});
