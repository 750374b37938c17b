// Export buttons: the API streams the download (GET /v1/sessions/export, GET /v1/prs/.../export); the page
// fetches it with the factory header (an <a download> cannot send one) and hands the file to the browser.
import { useState } from 'react';

export function ExportButtons({ appId, path, query, label, testId }: { appId: string; path: string; query?: Record<string, string | number | boolean | undefined>; label: string; testId: string }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const download = async (format: 'csv' | 'json') => {
    setBusy(format);
    setError(null);
    try {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
      params.set('format', format);
      const res = await fetch(`${path}?${params}`, { credentials: 'same-origin', headers: { 'X-Attest-Dashboard': '1', 'X-Outerlayer-App-Id': appId } });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        throw new Error(body?.error?.message ?? `Export failed (HTTP ${res.status})`);
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `export.${format}`;
      const url = URL.createObjectURL(await res.blob());
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
      <button type="button" disabled={busy !== null} onClick={() => void download('csv')}>{busy === 'csv' ? 'Exporting…' : 'CSV'}</button>{' '}
      <button type="button" disabled={busy !== null} onClick={() => void download('json')}>{busy === 'json' ? 'Exporting…' : 'JSON'}</button>
      {error && <span className="error-text" role="alert"> {error}</span>}
    </span>
  );
}
