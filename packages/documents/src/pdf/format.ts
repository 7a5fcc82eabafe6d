import { plain } from '../decimal';

/**
 * Numbers for people, exactly: Intl.NumberFormat formats a decimal string without passing it
 * through a double (ECMA-402 NumberFormat v3, Node 20), so 0.1 + 0.2 never shows up as a cent off.
 */
export interface Formatter {
  money(amount: string): string;
  /** Unit prices keep up to 4 decimals (prices are stored with 4), amounts show the currency's. */
  price(amount: string): string;
  number(value: string): string;
  percent(value: string): string;
  date(isoDate: string): string;
}

type DecimalFormat = { format(value: string): string };

export function formatter(currency: string, locale = 'en-GB'): Formatter {
  // The string overload of format() is in the runtime, not yet in TypeScript's lib for ES2022.
  // Without a currency amounts are plain numbers with cents, rather than a guessed symbol.
  const style: Intl.NumberFormatOptions = currency ? { style: 'currency', currency } : { minimumFractionDigits: 2 };
  const moneyFmt = new Intl.NumberFormat(locale, style) as unknown as DecimalFormat;
  const priceFmt = new Intl.NumberFormat(locale, { ...style, maximumFractionDigits: 4 }) as unknown as DecimalFormat;
  const numberFmt = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 }) as unknown as DecimalFormat;
  const dateFmt = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  return {
    money: (amount) => moneyFmt.format(plain(amount)),
    price: (amount) => priceFmt.format(plain(amount)),
    number: (value) => numberFmt.format(plain(value)),
    percent: (value) => `${numberFmt.format(plain(value))} %`,
    // A document date is a calendar date: read and shown in UTC so no time zone moves it a day.
    date: (isoDate) => dateFmt.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`)),
  };
}
