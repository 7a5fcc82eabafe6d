import { isPublicAddress } from './addresses';

describe('webhook target addresses', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:0:0:0:0:a9fe:a9fe',
    '0:0:0:0:0:ffff:7f00:1',
    '64:ff9b::10.0.0.1',
    '::8.8.8.8',
    '::808:808',
    '0:0:0:0:0:0:808:808',
    '64:ff9b:1::808:808',
    '64:ff9b:1:ffff::1',
    'not an address',
  ])('refuses %s', (address) => expect(isPublicAddress(address)).toBe(false));

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'accepts %s',
    (address) => expect(isPublicAddress(address)).toBe(true),
  );
});
