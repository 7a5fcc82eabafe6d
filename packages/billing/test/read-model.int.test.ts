import { randomUUID } from 'node:crypto';
import { consumer as consumers, type EventEnvelope } from '@bo/contracts';
import { createDb, migrate, type Knex, createLogger } from '@bo/runtime';
import {
  organizationSettingsMigration,
  organizationTodaySql,
  readSettings,
  rememberOrganization,
  addOrganizationCurrency,
  addOrganizationLockDate,
  addOrganizationRounding,
  createOrganizationSettingsHold,
  organizationSettingsConsumer,
  holdOrganizationSettingsExclusively,
  todayByZone,
} from '../src/read-model/organization-settings';
import { documentDefaults } from '../src/document-taxes';
import { findPartner, partnerDirectoryConsumer, rememberPartner } from '../src/read-model/partner-directory';
import { createTestDatabase, profileRecord, type TestDatabase, statementsIn } from '@bo/testkit';

/** The shared read models sales and invoicing keep, over real PostgreSQL. */
describe('shared read models', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'readmodels');
    await migrate(db, 'readmodels', [
      {
        name: '001_partner_directory',
        async up(trx, schema) {
          await trx.schema.withSchema(schema).createTable('partner_directory', (t) => {
            t.integer('org_id').notNullable();
            t.integer('id').notNullable();
            t.string('partnername', 200).notNullable();
            t.string('display_name', 200).notNullable();
            t.string('partner_type', 16);
            t.string('currency', 3);
            t.specificType('ibans', 'text[]').notNullable().defaultTo('{}');
            t.integer('version').notNullable();
            t.timestamp('deleted_at', { useTz: true });
            t.primary(['org_id', 'id']);
          });
        },
      },
      organizationSettingsMigration('002_organization_settings'),
      { name: '003_organization_currency', up: addOrganizationCurrency },
      { name: '004_organization_rounding', up: addOrganizationRounding },
      { name: '005_organization_lock_date', up: addOrganizationLockDate },
      { name: '006_organization_settings_hold', up: createOrganizationSettingsHold },
    ]);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const record = (version: number, partnername: string, extra: Record<string, unknown> = {}) => ({
    id: 5,
    orgid: 1,
    partnername,
    display_name: partnername,
    partner_type: 'customer' as const,
    currency: 'EUR',
    version,
    ...extra,
  });

  it('keeps the highest version of a partner whatever the order, even for edits in the same second', async () => {
    await rememberPartner(db, record(1, 'Created'));
    await rememberPartner(db, record(3, 'Third edit', { partner_type: 'both', currency: 'USD' }));
    await rememberPartner(db, record(2, 'Second edit'));
    expect(await findPartner(db, 1, 5)).toMatchObject({
      partnername: 'Third edit',
      partner_type: 'both',
      currency: 'USD',
      version: 3,
      deleted_at: null,
    });
    // An equal version is the same change (a redelivery, or the partners service's answer for it):
    // it is applied again, so what arrives last at that version is kept, and the version stays.
    await rememberPartner(db, record(3, 'Third edit, as answered', { partner_type: 'customer', currency: 'EUR' }));
    expect(await findPartner(db, 1, 5)).toMatchObject({
      partnername: 'Third edit, as answered',
      partner_type: 'customer',
      currency: 'EUR',
      version: 3,
    });
    // A lower version still changes nothing after it.
    await rememberPartner(db, record(2, 'Second edit again'));
    expect(await findPartner(db, 1, 5)).toMatchObject({ partnername: 'Third edit, as answered', version: 3 });
  });

  it("keeps the partner's own IBANs as partners stores them, once each, and none from a record without bank accounts", async () => {
    const accounts = [{ iban: 'GB82 WEST 1234 5698 7654 32' }, { iban: 'gb82west12345698765432' }, { iban: 'DE89370400440532013000' }];
    await rememberPartner(db, { ...record(1, 'Payer'), id: 6, bank_accounts: accounts });
    expect((await findPartner(db, 1, 6))?.ibans).toEqual(['GB82WEST12345698765432', 'DE89370400440532013000']);
    await rememberPartner(db, { ...record(2, 'Payer, accounts removed'), id: 6 });
    expect((await findPartner(db, 1, 6))?.ibans).toEqual([]);
  });

  it('keeps a deletion final, even when an older edit arrives after it', async () => {
    await rememberPartner(db, record(4, 'Deleted'), true);
    await rememberPartner(db, record(2, 'Late edit'));
    await rememberPartner(db, record(5, 'Impossible later edit'));
    const row = await findPartner(db, 1, 5);
    expect(row?.deleted_at).toBeInstanceOf(Date);
    expect(await findPartner(db, 2, 5)).toBeUndefined();
  });

  it('applies a batch of partner events in one upsert, ending where applying them one by one would', async () => {
    const consumer = partnerDirectoryConsumer({ ...consumers.salesPartnerDirectory, name: 'readmodels.directory' });
    const event = (type: string, id: number, version: number, partnername: string, extra: Record<string, unknown> = {}): EventEnvelope => ({
      id: randomUUID(),
      type: `partners.partner.${type}`,
      occurred_at: '2026-01-01T00:00:00',
      org_id: 1,
      data: { ...record(version, partnername), id, ...extra },
    });
    const batch = [
      event('created', 20, 1, 'Created'),
      event('updated', 20, 3, 'Third edit', { currency: 'USD' }),
      event('updated', 20, 2, 'Second edit'),
      event('created', 21, 1, 'Short-lived'),
      event('deleted', 21, 2, 'Short-lived'),
      event('updated', 21, 3, 'Edited after its deletion'),
      event('created', 22, 1, 'Equal versions', { currency: 'USD' }),
      event('updated', 22, 1, 'Equal versions, the later', { currency: 'GBP' }),
      // Ignored, each logged: a record of another organization, and one missing its name.
      event('created', 23, 1, 'Foreign', { orgid: 2 }),
      event('created', 24, 1, 'Nameless', { partnername: undefined }),
    ];
    const upsert = consumer.statement!(batch, createLogger('test', 'silent'), [])!;
    const statements = await statementsIn(db, (trx) => trx.raw(upsert.sql, upsert.bindings));
    expect(statements).toHaveLength(1);
    expect(await findPartner(db, 1, 20)).toMatchObject({ partnername: 'Third edit', currency: 'USD', version: 3, deleted_at: null });
    const deleted = await findPartner(db, 1, 21);
    expect(deleted).toMatchObject({ partnername: 'Edited after its deletion', version: 3 });
    expect(deleted?.deleted_at).toBeInstanceOf(Date);
    expect(await findPartner(db, 1, 22)).toMatchObject({ partnername: 'Equal versions, the later', currency: 'GBP', version: 1 });
    expect(await findPartner(db, 1, 23)).toBeUndefined();
    expect(await findPartner(db, 2, 23)).toBeUndefined();
    expect(await findPartner(db, 1, 24)).toBeUndefined();
  });

  it("keeps the newest organization time zone and reads each organization's today in it", async () => {
    const instant = new Date('2026-03-10T11:30:00Z');
    const profile = (version: number, time_zone: string | null) =>
      ({ org_id: 1, version, time_zone }) as Parameters<typeof rememberOrganization>[1];
    await rememberOrganization(db, profile(2, 'Pacific/Auckland'));
    await rememberOrganization(db, profile(1, 'Pacific/Honolulu'));
    await rememberOrganization(db, { ...profile(1, 'Pacific/Honolulu'), org_id: 2 });
    expect((await readSettings(db, 1)).today(instant)).toBe('2026-03-11');
    expect((await readSettings(db, 2)).today(new Date('2026-03-11T09:30:00Z'))).toBe('2026-03-10');
    expect((await readSettings(db, 3)).today(instant)).toBe('2026-03-10');

    const byZone = await todayByZone(db, instant);
    expect(byZone.utc).toBe('2026-03-10');
    expect([...byZone.zones].sort()).toEqual([
      ['Pacific/Auckland', '2026-03-11'],
      ['Pacific/Honolulu', '2026-03-10'],
    ]);
    // The same reading in SQL, per organization: the scheduler's due day.
    const today = organizationTodaySql('o.org', byZone);
    const rows = await db.raw(
      `select o.org, (${today.sql})::text as today from (values (1), (2), (3)) as o(org) order by o.org`,
      today.bindings,
    );
    expect(rows.rows).toEqual([
      { org: 1, today: '2026-03-11' },
      { org: 2, today: '2026-03-10' },
      { org: 3, today: '2026-03-10' },
    ]);

    // A zone this runtime does not know reads as UTC instead of failing.
    await rememberOrganization(db, { ...profile(1, 'Mars/Olympus_Mons'), org_id: 4 });
    expect((await readSettings(db, 4)).today(instant)).toBe('2026-03-10');
    expect([...(await todayByZone(db, instant)).zones.keys()].sort()).toEqual(['Pacific/Auckland', 'Pacific/Honolulu']);

    await rememberOrganization(db, profile(3, null));
    expect((await readSettings(db, 1)).today(instant)).toBe('2026-03-10');
  });
  it('reads the settings in one statement, held when asked, and a reading answers every setting', async () => {
    const profile = {
      org_id: 7,
      version: 1,
      time_zone: 'Europe/Paris',
      default_currency: 'EUR',
      rounding: 'document',
      cash_rounding: 0.05,
    };
    await rememberOrganization(db, profile as Parameters<typeof rememberOrganization>[1]);
    const settingsReads = (statements: string[]) => statements.filter((s) => /organization_settings/.test(s));
    const locked = await statementsIn(db, async (trx) => {
      const settings = await readSettings(trx, 7, { hold: true });
      expect(settings.held).toBe(true);
      expect(settings.today(new Date('2026-03-10T23:30:00Z'))).toBe('2026-03-11');
      expect(settings.taxPolicy).toEqual({ rounding: 'document', cash_rounding: '0.0500', accounting_currency: 'EUR' });
      // Given the reading, documentDefaults reads the partner's currency alone.
      expect((await documentDefaults(trx, 7, 99, settings)).currency).toBe('EUR');
    });
    expect(settingsReads(locked)).toHaveLength(1);
    expect(locked[0]).toMatch(/organization_settings_held/);
    expect(locked).toHaveLength(2);
    // documentDefaults reads the settings with the partner's currency, and answers that reading for the rest.
    const together = await statementsIn(db, async (trx) => {
      const defaults = await documentDefaults(trx, 7, 5);
      expect(defaults).toMatchObject({ currency: 'EUR', rounding: 'document', time_zone: 'Europe/Paris' });
      expect(defaults.settings.held).toBe(false);
      expect(defaults.settings.today(new Date('2026-03-10T23:30:00Z'))).toBe('2026-03-11');
    });
    expect(together).toHaveLength(1);
    // An organization whose profile was never seen reads once too, and has the defaults.
    const unseen = await statementsIn(db, async (trx) => {
      const settings = await readSettings(trx, 8);
      expect(settings.row).toBeUndefined();
      expect(settings.taxPolicy).toEqual({ rounding: 'line', cash_rounding: null, accounting_currency: null });
      settings.today();
    });
    expect(unseen).toHaveLength(1);
    // Every read reads: a change is seen at once.
    await readSettings(db, 7);
    await rememberOrganization(db, { ...profile, version: 2, time_zone: 'Pacific/Honolulu' } as Parameters<typeof rememberOrganization>[1]);
    expect((await readSettings(db, 7)).today(new Date('2026-03-10T23:30:00Z'))).toBe('2026-03-10');
  });

  it('holds a change of the books back while a posting holds the settings, and a posting after it waits for it and reads it', async () => {
    /** What the books' owner does (invoicing.books.configure): the settings held exclusive, then the row written. */
    const setLockDate = async (trx: Knex, lock_date: string) => {
      await holdOrganizationSettingsExclusively(trx, 9);
      await trx('organization_settings').insert({ org_id: 9, lock_date, version: 0 }).onConflict('org_id').merge(['lock_date']);
    };
    const lockDateOf = async (trx: Knex = db) => String((await trx('organization_settings').where({ org_id: 9 }).first())?.lock_date ?? '');
    /** Waits until some session waits for an advisory lock: the one the test set off is then blocked on it. */
    const aSessionWaits = async () => {
      for (let i = 0; i < 200; i++) {
        const { rows } = await db.raw<{ rows: unknown[] }>(
          `select 1 from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and not l.granted and d.datname = current_database()`,
        );
        if (rows.length) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('no session waits for the settings lock');
    };
    await db.transaction((trx) => setLockDate(trx, '2026-01-31'));

    // A posting holds the settings: the change waits until it commits.
    const posting = await db.transaction();
    expect((await readSettings(posting, 9, { hold: true })).row?.lock_date).toBeTruthy();
    const applying = db.transaction((trx) => setLockDate(trx, '2026-02-28'));
    await aSessionWaits();
    expect(await lockDateOf()).toMatch(/2026-01-31/);
    await posting.commit();
    await applying;
    expect(await lockDateOf()).toMatch(/2026-02-28/);

    // A change being made: a posting waits for it, then reads the new one (its read is newer than its wait).
    const lockTrx = await db.transaction();
    await setLockDate(lockTrx, '2026-03-31');
    const later = db.transaction(async (trx) => (await readSettings(trx, 9, { hold: true })).row?.lock_date);
    await aSessionWaits();
    await lockTrx.commit();
    expect(String(await later)).toMatch(/2026-03-31/);
  });

  it("leaves the books' settings to their owner: the profile's event, however new, does not write them", async () => {
    const consumer = organizationSettingsConsumer({ ...consumers.salesOrganization, name: 'readmodels.organization' }, { ownsBooks: true });
    const log = createLogger('test', 'silent');
    await db('organization_settings').insert({ org_id: 10, default_currency: 'EUR', lock_date: '2026-01-31', version: 0 });
    const event: EventEnvelope = {
      id: randomUUID(),
      type: 'partners.organization.updated',
      org_id: 10,
      occurred_at: new Date().toISOString(),
      data: {
        ...profileRecord(10, {
          version: 5,
          time_zone: 'Europe/Paris',
          default_currency: 'USD',
          lock_date: '2025-12-31',
          logo_bytes: 0,
          updated_at: new Date().toISOString(),
        }),
      },
    };
    // The consumer's one statement for the batch (the inbox runs it with the batch's inbox rows).
    const upsert = consumer.statement!([event], log, [])!;
    await db.raw(upsert.sql, upsert.bindings);
    const row = await db('organization_settings').where({ org_id: 10 }).first();
    expect([row?.time_zone, row?.default_currency, String(row?.lock_date)]).toEqual([
      'Europe/Paris',
      'EUR',
      expect.stringMatching(/2026-01-31|Jan 31 2026/),
    ]);
  });
});
