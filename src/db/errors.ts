// Recognising constraint violations on either dialect, so services can turn them into 409s.
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = String((err as { code?: unknown }).code ?? '');
  return (
    code === '23505' ||
    code.startsWith('SQLITE_CONSTRAINT_UNIQUE') ||
    code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') ||
    /UNIQUE constraint failed/.test(err.message)
  );
}
