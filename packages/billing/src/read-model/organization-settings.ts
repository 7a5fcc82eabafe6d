import { organization, type consumer } from '@bo/contracts';
import {
  bindConsumer,
  exactJson,
  keepNewest,
  keepNewestStatement,
  type InboxHandlerDef,
  type Knex,
  type Migration,
  type VersionedRow,
  type VersionedTable,
} from '@bo/runtime';
import { currentTime, DEFAULT_ROUNDING, localDate, localDateTime, isTimeZone, type RoundingPolicy } from '@bo/kernel';

/**
 * What sales and invoicing keep of the organization profile (owned by partners): its time zone,
 * which decides every "today" (overdue, expiry, the recurring scheduler, default dates), and its
 * default currency, which a new document takes when its partner has none. An organization whose
 * profile they have not seen is on UTC and has no default currency. In invoicing, which keeps the
 * books, the default currency (the accounting currency) and the lock date are its own
 * (`ownsBooks`).
 */
export interface OrganizationSettings {
  org_id: number;
  time_zone: string | null;
  /** Kept since documents store their currency (invoicing 010, sales 006 add the column). */
  default_currency: string | null;
  /** The documents' rounding policy (docs/invoicing.md "Taxes and rounding"); null: `line`. */
  rounding: RoundingPolicy | null;
  /** numeric as the driver reads it; null: no cash rounding. */
  cash_rounding: string | null;
  /** Invoicing's only (its migration 016 adds the column), set with its accounting currency by `invoicing.books.configure`: the last day of closed books; null: none. */
  lock_date?: string | Date | null;
  version: number;
}

/** What a service's read model keeps of the profile's event besides the shared fields. */
export interface OrganizationSettingsOptions {
  /**
   * The service keeps the books (invoicing): the accounting currency and the lock date in its row are
   * its own, set by `invoicing.books.configure` under the settings lock
   * (`holdOrganizationSettingsExclusively`), and the profile's event leaves them alone, so no event,
   * however late, brings back an older value.
   */
  ownsBooks?: boolean;
}

/** The read model's table, the same in every service keeping it; add it to the service's migrations. */
export function organizationSettingsMigration(name: string): Migration {
  return {
    name,
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('organization_settings', (t) => {
        t.integer('org_id').primary();
        t.string('time_zone', 64);
        t.integer('version').notNullable();
      });
    },
  };
}

/** The default currency's column, added to the read model's table when documents began to store their currency. */
export async function addOrganizationCurrency(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.schema.withSchema(schema).alterTable('organization_settings', (t) => {
    t.string('default_currency', 3);
  });
}

/** The rounding policy's columns, added to the read model's table when documents began to compute their taxes. */
export async function addOrganizationRounding(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.schema.withSchema(schema).alterTable('organization_settings', (t) => {
    t.string('rounding', 8);
    t.decimal('cash_rounding', 14, 4);
  });
}

/** The lock date's column, added by the service that closes books (invoicing). */
export async function addOrganizationLockDate(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.schema.withSchema(schema).alterTable('organization_settings', (t) => {
    t.date('lock_date');
  });
}

/**
 * The organization's settings lock: an advisory lock per schema and organization. A posting holds it
 * shared (`readSettings` with `hold`), a change of the books' settings exclusive
 * (`holdOrganizationSettingsExclusively`). A row lock (FOR SHARE) would do the same, but each posting
 * would write the one row every posting of the organization reads: a WAL record and a dirty page each
 * time, and a new multixact for every posting that joins others under way, which only vacuum ever
 * takes back.
 */
const settingsLockKey = (org: string) => `hashtextextended('organization_settings:' || current_schema() || ':' || ${org}, 0)`;

/**
 * The schema's `organization_settings_held(org_id)`: takes the organization's settings lock shared,
 * then answers its settings row. Two statements in one round trip: a statement's snapshot is taken
 * when it starts, so a select in the statement that waited for the lock would miss a lock date
 * committed meanwhile; a PL/pgSQL function's next statement takes a new one. Add it to the
 * migrations of a service whose postings hold their settings (invoicing).
 */
/**
 * The `held` CTE a posting's load begins with (binding: the organization): its settings read under
 * the settings lock, shared, taken before any other lock of the statement (a later CTE that locks
 * rows refers to `held` first, so it is evaluated first).
 */
export const HELD_SETTINGS_CTE = 'held as materialized (select * from organization_settings_held(?::int))';

/**
 * SQL for the settings row of a load's `held` CTE (HELD_SETTINGS_CTE) as exact JSON, for
 * settingsReading: a load that holds the settings and locks what it posts on reads both in one
 * statement.
 */
export const HELD_SETTINGS_JSON = `(select ${exactJson('h', ['org_id', 'version', 'books_version'])} from held h)`;

export async function createOrganizationSettingsHold(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.raw(
    `create or replace function ??.organization_settings_held(org integer) returns setof ??.organization_settings
       language plpgsql volatile as $held$
     begin
       perform pg_advisory_xact_lock_shared(${settingsLockKey('org')});
       return query select s.* from ??.organization_settings s where s.org_id = org;
     end
     $held$`,
    [schema, schema, schema],
  );
}

export async function rememberOrganization(
  db: Knex,
  profile: organization.ProfileSummary,
  options: OrganizationSettingsOptions = {},
): Promise<void> {
  await keepNewest(db, SETTINGS_TABLE, settingsRowOf(profile, options), profile.version);
}

const SETTINGS_TABLE: VersionedTable = { table: 'organization_settings', key: ['org_id'] };

/** The read model's row of a profile: what this service keeps of it. */
function settingsRowOf(profile: organization.ProfileSummary, options: OrganizationSettingsOptions): Record<string, Knex.Value> {
  return {
    org_id: profile.org_id,
    time_zone: profile.time_zone,
    ...(options.ownsBooks ? {} : { default_currency: profile.default_currency }),
    // A profile event from before these fields (an older producer, a replay) has neither: the defaults.
    rounding: profile.rounding ?? null,
    cash_rounding: profile.cash_rounding == null ? null : String(profile.cash_rounding),
  };
}

/**
 * The organization's settings as one transaction read them: its row (undefined when this service has
 * not seen the profile) and whether it was read held, under the organization's settings lock, shared
 * (`organization_settings_held`), which a posting needs so that a change of the books' settings waits
 * for it and it decides on the row unchanged to its end. A handler reads it once (readSettings, or
 * with its load statement, then settingsReading) and passes it to whatever needs a setting: there is
 * no other copy, so nothing reads the row twice or reads one left over from before the settings lock
 * was taken exclusive (holdOrganizationSettingsExclusively).
 */
export interface SettingsReading {
  readonly row: OrganizationSettings | undefined;
  readonly held: boolean;
  /** taxPolicyOf the row. */
  readonly taxPolicy: OrganizationTaxPolicy;
  /** timeZoneOf the row: null for UTC. */
  readonly timeZone: string | null;
  /** The organization's today at `instant` (default now), in its time zone. */
  today(instant?: Date): string;
  /** The organization's clock reading at `instant` (default now). */
  now(instant?: Date): LocalNow;
}

/** The reading of a settings row read already, alone or with a load's other rows (null or undefined: the profile unseen). */
export function settingsReading(row: OrganizationSettings | null | undefined, options: { held?: boolean } = {}): SettingsReading {
  const found = row ?? undefined;
  const timeZone = timeZoneOf(found);
  return {
    row: found,
    held: options.held === true,
    taxPolicy: taxPolicyOf(found),
    timeZone,
    today: (instant = currentTime()) => nowIn(timeZone, instant).date,
    now: (instant = currentTime()) => nowIn(timeZone, instant),
  };
}

/**
 * Reads the organization's settings row as this service's read model has it, in one statement;
 * `hold` reads it under the organization's settings lock, shared (`organization_settings_held`),
 * which lasts to the end of the transaction. Every call reads: read once per handler and pass the
 * reading on.
 */
export async function readSettings(db: Knex, orgId: number, options: { hold?: boolean } = {}): Promise<SettingsReading> {
  const row = options.hold
    ? (await db.raw<{ rows: OrganizationSettings[] }>('select * from organization_settings_held(?::int)', [orgId])).rows[0]
    : await db<OrganizationSettings>('organization_settings').where({ org_id: orgId }).first<OrganizationSettings | undefined>();
  return settingsReading(row, { held: options.hold === true });
}

/** What a document's taxes take from its organization: the rounding policy, cash rounding, and the accounting currency. */
export interface OrganizationTaxPolicy {
  rounding: RoundingPolicy;
  cash_rounding: string | null;
  /** The organization's currency, which its journal posts in; null when it has none (the journal then posts documents as they are). */
  accounting_currency: string | null;
}

/** The tax policy of a settings row read already (undefined: the profile unseen, so `line`, no cash rounding, no currency). */
export function taxPolicyOf(row: OrganizationSettings | undefined): OrganizationTaxPolicy {
  return {
    rounding: row?.rounding ?? DEFAULT_ROUNDING,
    cash_rounding: row?.cash_rounding ?? null,
    accounting_currency: row?.default_currency ?? null,
  };
}

/** The time zone of a settings row read already: null for UTC, for an unseen profile, or for a zone this runtime does not know. */
export function timeZoneOf(row: OrganizationSettings | undefined): string | null {
  return row?.time_zone && isTimeZone(row.time_zone) ? row.time_zone : null;
}

/**
 * SQL for the currency a new document of `partnerId` takes (bindings in order): the partner's, else
 * the organization's default, as this service's read models know them; null when neither has one.
 */
export function documentCurrencySql(orgId: number, partnerId: number): { sql: string; bindings: Knex.Value[] } {
  return {
    sql: `coalesce((select currency from partner_directory where org_id = ? and id = ?), (select default_currency from organization_settings where org_id = ?))`,
    bindings: [orgId, partnerId, orgId],
  };
}

/** The organization's clock reading: the instant, and its local date and date-time. */
export interface LocalNow {
  instant: Date;
  /** `YYYY-MM-DD` in the organization's time zone. */
  date: string;
  /** `YYYY-MM-DDTHH:MM:SS` in the organization's time zone: the default date-time of a new document. */
  dateTime: string;
}

/** The clock reading in a time zone read already (null: UTC; a zone this runtime does not know counts as UTC). */
export function nowIn(zone: string | null, instant: Date = currentTime()): LocalNow {
  const known = zone && isTimeZone(zone) ? zone : null;
  return { instant, date: localDate(instant, known), dateTime: localDateTime(instant, known) };
}

/** Today (`YYYY-MM-DD`) of the organization whose settings row was read already (UTC when it has no known zone). */
export function todayOf(row: OrganizationSettings | undefined, instant: Date = currentTime()): string {
  return nowIn(timeZoneOf(row), instant).date;
}

/** Today of every organization at one instant: `zones` maps each zone in use to its date, `utc` is the date of organizations on none. */
export interface TodayByZone {
  instant: Date;
  utc: string;
  zones: Map<string, string>;
}

/** Today in every time zone some organization is on, for work spanning organizations (the recurring scheduler). */
export async function todayByZone(db: Knex, instant: Date = currentTime()): Promise<TodayByZone> {
  const rows = await db<OrganizationSettings>('organization_settings').distinct('time_zone').whereNotNull('time_zone');
  const known = rows.flatMap((r) => (r.time_zone && isTimeZone(r.time_zone) ? [r.time_zone] : []));
  return { instant, utc: localDate(instant), zones: new Map(known.map((zone) => [zone, localDate(instant, zone)])) };
}

/**
 * SQL for "today" of the organization in `orgIdColumn`, from a `todayByZone` reading (bindings in
 * order): the date of its zone, or the UTC date when it has none.
 */
export function organizationTodaySql(orgIdColumn: string, today: Omit<TodayByZone, 'instant'>): { sql: string; bindings: Knex.Value[] } {
  if (today.zones.size === 0) return { sql: '?::date', bindings: [today.utc] };
  const values = [...today.zones].map(() => '(?, ?::date)').join(', ');
  return {
    sql: `coalesce((select org_zone_today.local_date from organization_settings org_zone join (values ${values}) as org_zone_today(time_zone, local_date) on org_zone_today.time_zone = org_zone.time_zone where org_zone.org_id = ??), ?::date)`,
    bindings: [...[...today.zones].flat(), orgIdColumn, today.utc],
  };
}

/**
 * Takes the organization's settings lock exclusive for the rest of the transaction, waiting for the
 * postings that hold it shared to commit; a posting that starts after it waits for this transaction
 * and then reads what it wrote. Statements after it read a snapshot newer than the wait: a reading
 * the transaction made before it (readSettings) may be older than the row now is, so whatever
 * decides after the lock reads the row again, after it (readSettings, or its own load statement).
 */
export async function holdOrganizationSettingsExclusively(db: Knex, orgId: number): Promise<void> {
  await db.raw(SETTINGS_HELD_EXCLUSIVELY, [orgId]);
}

/**
 * holdOrganizationSettingsExclusively's statement (binding: the organization), answering `held`: for
 * a one-statement write to take the lock as its first part, before it writes the settings.
 */
export const SETTINGS_HELD_EXCLUSIVELY = `select pg_advisory_xact_lock(${settingsLockKey('?::int')}) as held`;

/**
 * The consumer keeping a service's organization settings from `partners.organization.updated`,
 * exactly once (inbox): a batch of events is one upsert keeping each organization's newest version,
 * run with its inbox rows as one statement (an event applied twice leaves what it did once). An event
 * it cannot read, or of another organization than it names, is logged and left: the next profile
 * update puts the row right.
 */
export function organizationSettingsConsumer(
  contract: typeof consumer.salesOrganization,
  options: OrganizationSettingsOptions = {},
): InboxHandlerDef {
  return bindConsumer(contract).to({
    malformed: 'skip',
    statement(events, log) {
      const records: VersionedRow[] = [];
      for (const event of events) {
        if (event.data.org_id !== event.org_id)
          log
            .child({ event_id: event.id, type: event.type })
            .error({ org_id: event.data.org_id }, 'organization event with an unexpected profile; ignored');
        else records.push({ row: settingsRowOf(event.data, options), version: event.data.version });
      }
      return keepNewestStatement(SETTINGS_TABLE, records);
    },
  });
}
