// Export buttons: the API streams the download (GET /v1/sessions/export, GET /v1/prs/.../export); the page
// asks for it through the API client as a blob (an <a download> cannot send the factory header) and hands the
// file to the browser under the name the gateway gave it.
import { useState } from 'react';

export type ExportFormat = 'csv' | 'json';
/** One export call of the API client, asked for as a blob (`parseAs: 'blob'`). */
export type ExportRequest = (format: ExportFormat) => Promise<{ data?: Blob; response: Response }>;

export function ExportButtons({ download, label, testId }: { download: ExportRequest; label: string; testId: string }) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (format: ExportFormat) => {
    setBusy(format);
    setError(null);
    try {
      const { data, response } = await download(format);
      if (!data) throw new Error(`Export failed (HTTP ${response.status})`);
      const name =
        /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `export.${format}`;
      const url = URL.createObjectURL(data);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <span className="export" data-testid={testId}>
      <span className="muted">{label}</span>{' '}
      <button type="button" disabled={busy !== null} onClick={() => void save('csv')}>
        {busy === 'csv' ? 'Exporting…' : 'CSV'}
      </button>{' '}
      <button type="button" disabled={busy !== null} onClick={() => void save('json')}>
        {busy === 'json' ? 'Exporting…' : 'JSON'}
      </button>
      {error && (
        <span className="error-text" role="alert">
          {' '}
          {error}
        </span>
      )}
    </span>
  );
}
