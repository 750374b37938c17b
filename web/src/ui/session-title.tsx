// A session's name on every page: the title the gateway stored (sent, or derived at ingest: issue 45). An id
// is never shown in its place; a session with no title at all (none is stored so) reads as untitled.
export function sessionTitleText(title: string | null | undefined): string {
  return title && title.trim() !== '' ? title : '(untitled session)';
}
