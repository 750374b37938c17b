// Schema pieces shared by areas: the success envelope and common field shapes.
import { Type, type TSchema } from 'typebox';

/** `{ data: T }`, the envelope of every success body. */
export const Data = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

export const Uuid = Type.String({ format: 'uuid' });
export const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' });
export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
