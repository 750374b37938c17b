// Pseudonymous audit actors and targets (issue 42, erasure of a person). An audit row no longer holds a person's
// name, email or a credential's name: it holds a pseudonym (actor_ref, target_ref) whose row in audit_identities
// says who it is. The hash chain covers the pseudonym only, so erasing a person deletes their audit_identities
// rows and every audit row still hashes as it did.
//
// Existing rows move over: their names, emails and labels go to audit_identities, and each org's chain is hashed
// again under the new row shape. A chain that did not verify before keeps failing at the same row: from the first
// row whose old hash did not hold on, rows keep their old hashes (which cannot match the new shape), so
// re-hashing never launders an edit made before the migration.
//
// Frozen code: the row rules below are copies of src/server/audit.ts as of this migration, so a later change of
// the application cannot change what this migration did.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';

const GENESIS_HASH = '0'.repeat(64);
const BATCH = 1000;

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

function hash(prevHash: string, row: Record<string, unknown>): string {
  return crypto.createHash('sha256').update(prevHash).update(canonicalJson(row)).digest('hex');
}

interface OldRow {
  id: string;
  org_id: string;
  seq: number | string;
  action_type: string;
  actor_id: string;
  actor_type: string;
  actor_name: string;
  actor_email: string;
  actor_label: string;
  target_id: string;
  target_type: string;
  target_identifier: string;
  details: string;
  created_at: number | string;
  prev_hash: string;
  row_hash: string;
}

interface Identity {
  id: string;
  subject: string;
  name: string;
  email: string;
  label: string;
}

/** The subject an actor is: a user, or a credential (its name is its label); null for the gateway itself. */
function actorSubject(r: OldRow): string | null {
  if (r.actor_type === 'system') return null;
  return r.actor_type === 'user' ? `user:${r.actor_id}` : `credential:${r.actor_id}`;
}

/** The subject a target is when it names a person or a credential (whose name may name one); else null. */
function targetSubject(r: OldRow): { subject: string; email: string } | null {
  if (r.target_type === 'member') return { subject: `user:${r.target_id}`, email: r.target_identifier };
  if (r.target_type === 'invitation' && r.target_identifier.includes('@')) {
    const email = r.target_identifier.toLowerCase();
    return { subject: `email:${email}`, email };
  }
  if (r.target_type === 'api_key' || r.target_type === 'management_key')
    return { subject: `credential:${r.target_id}`, email: '' };
  return null;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_identities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // 'user:<user id>' | 'email:<lower-case email>' | 'credential:<credential id>'
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    // what names it on one line: a user's email, a credential's name
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('audit_identities_subject', ['org_id', 'subject'])
    .execute();
  await db.schema.alterTable('audit_log').addColumn('actor_ref', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('target_ref', 'text').execute();

  const d = db as Kysely<{ audit_log: OldRow & { actor_ref: string | null; target_ref: string | null } }>;
  const di = db as unknown as Kysely<{ audit_identities: Identity & { org_id: string; created_at: number } }>;
  const orgs = await d.selectFrom('audit_log').select('org_id').distinct().execute();
  const now = Date.now();
  for (const { org_id: orgId } of orgs) {
    const identities = new Map<string, Identity>();
    const identity = (subject: string, fields: Partial<Identity>): Identity => {
      let found = identities.get(subject);
      if (!found) {
        found = { id: crypto.randomUUID(), subject, name: '', email: '', label: '' };
        identities.set(subject, found);
      }
      // Later rows name the subject as it is now: each non-empty value replaces the earlier one.
      for (const k of ['name', 'email', 'label'] as const) if (fields[k]) found[k] = fields[k];
      return found;
    };
    let afterSeq = 0;
    let oldPrev = GENESIS_HASH;
    let newPrev = GENESIS_HASH;
    let intact = true;
    for (;;) {
      const rows = await d
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(BATCH)
        .execute();
      for (const r of rows) {
        const seq = Number(r.seq);
        const createdAt = Number(r.created_at);
        const { prev_hash: storedPrev, row_hash: storedHash, actor_ref: _a, target_ref: _t, ...old } = r;
        intact &&=
          seq === afterSeq + 1 &&
          storedPrev === oldPrev &&
          storedHash === hash(storedPrev, { ...old, seq, created_at: createdAt });
        oldPrev = storedHash;
        afterSeq = seq;

        const aSubject = actorSubject(r);
        const actor = aSubject
          ? identity(aSubject, { name: r.actor_name, email: r.actor_email, label: r.actor_label })
          : null;
        const t = targetSubject(r);
        const target = t ? identity(t.subject, { email: t.email, label: r.target_identifier }) : null;
        let details = r.details;
        if (r.target_type === 'invitation') {
          const parsed = JSON.parse(r.details) as Record<string, unknown>;
          delete parsed.email;
          details = canonicalJson(parsed);
        }
        const next = {
          id: r.id,
          org_id: r.org_id,
          seq,
          action_type: r.action_type,
          actor_id: r.actor_id,
          actor_type: r.actor_type,
          actor_ref: actor?.id ?? null,
          target_id: r.target_id,
          target_type: r.target_type,
          target_ref: target?.id ?? null,
          target_identifier: target ? '' : r.target_identifier,
          details,
          created_at: createdAt,
        };
        const rowHash = intact ? hash(newPrev, next) : storedHash;
        await d
          .updateTable('audit_log')
          .set({
            actor_ref: next.actor_ref,
            target_ref: next.target_ref,
            target_identifier: next.target_identifier,
            details,
            prev_hash: intact ? newPrev : storedPrev,
            row_hash: rowHash,
          })
          .where('id', '=', r.id)
          .execute();
        newPrev = rowHash;
      }
      if (rows.length < BATCH) break;
    }
    const values = [...identities.values()].map((i) => ({ ...i, org_id: orgId, created_at: now }));
    for (let i = 0; i < values.length; i += 100)
      await di
        .insertInto('audit_identities')
        .values(values.slice(i, i + 100))
        .execute();
  }
  for (const column of ['actor_name', 'actor_email', 'actor_label'])
    await db.schema.alterTable('audit_log').dropColumn(column).execute();
}
