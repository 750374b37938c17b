// The API keys area's contract: the routes validate and serialize with it, the service takes and returns its types.
import { Type, type Static } from 'typebox';
import { KEY_PRESETS, PERMISSIONS } from '../../server/permissions.js';
import { DateTime, Nullable, Uuid } from '../../server/schemas.js';

const Permission = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));

export const ApiKey = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    // Plain strings on the way out: an enum here would make the serializer test each one against the list.
    permissions: Type.Array(Type.String()),
    key_prefix: Type.String(),
    created_at: DateTime,
    created_by: Nullable(Type.String()),
    expires_at: Nullable(DateTime),
  },
  { $id: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

/** A key as created: the plaintext comes back this once. */
export const CreatedApiKey = Type.Object({ ...ApiKey.properties, plaintext_key: Type.String() });
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateKeyInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    preset: Type.Optional(Type.Union(KEY_PRESETS.map((p) => Type.Literal(p)))),
    permissions: Type.Optional(Type.Array(Permission, { minItems: 1, maxItems: PERMISSIONS.length })),
    expiresAt: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);
export type CreateKeyInput = Static<typeof CreateKeyInput>;
