import { dec, type Dec } from '@bo/kernel';
import type { DocumentLine } from '../model';

/**
 * A line's figures as EN 16931 wants them: everything before tax. The line net amount (BT-131) is
 * the one the document states (the kernel's net, else the stored `subtotal`); the discount becomes a
 * line allowance (BG-27) taking the line from its gross amount to that net; the item net price
 * (BT-146) with its base quantity (BT-149) gives back the gross amount exactly: quantity x price /
 * base = gross.
 */
export interface NetLine {
  /** Line amount before the discount, before tax, in the currency's minor unit. */
  gross: Dec;
  /** gross - subtotal; zero when the line has no discount. */
  allowance: Dec;
  /** BT-146, before tax. */
  price: Dec;
  /** BT-149: the quantity `price` is for (1 unless the unit price is not an exact short decimal). */
  baseQuantity: Dec;
}

/**
 * Most decimals a unit price is written with before the line falls back to price-per-line: cents,
 * as @e-invoice-eu/core's schema allows for BT-146 (EN 16931 itself would allow more).
 */
const MAX_PRICE_DECIMALS = 2;

/** `net`: BT-131 as the document states it; `places`: the currency's minor unit. */
export function netLine(line: DocumentLine, net: Dec = dec(line.subtotal), places = 2): NetLine {
  const quantity = dec(line.quantity);
  const subtotal = net;
  const rate = dec(line.tax_rate).div(100);
  const entered = quantity.times(dec(line.price));
  // A tax-included price holds the tax: its before-tax value is price / (1 + rate), as the line's net was computed.
  let gross = (line.tax_included ? entered.div(rate.plus(1)) : entered).toDecimalPlaces(places);
  // Without a discount the gross is the net itself (a tax-included line would otherwise round twice, and the
  // `document` policy shares the net of tax-inclusive lines out of their total); a discount too small to
  // survive rounding leaves no allowance either.
  if (dec(line.discount).isZero() || gross.lte(subtotal)) gross = subtotal;
  const allowance = gross.minus(subtotal);
  const unit = quantity.isZero() ? gross : gross.div(quantity);
  if (unit.decimalPlaces() <= MAX_PRICE_DECIMALS && unit.times(quantity).eq(gross)) {
    return { gross, allowance, price: unit, baseQuantity: dec(1) };
  }
  // The unit price has no exact form in cents (10.00 for 3 hours): state the price of the whole quantity.
  return { gross, allowance, price: gross, baseQuantity: quantity };
}
