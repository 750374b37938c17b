// One artifact shown as what it is: an image, a video with seeking, an HTML report in a sandboxed frame
// (no scripts, no same-origin), a log as text; and a download for each. Bytes come from the content route
// with the cookie, same origin (the factory named in the query, as a media element cannot send headers).
import { useEffect, useState } from 'react';
import { api, artifactContentUrl, factory } from '../api/client';
import { formatBytes } from './format';

export interface ArtifactLike {
  id: string;
  kind: string;
  caption: string;
  filename: string;
  mediaType: string;
  bytes: number;
}

const TEXT_LIMIT = 256 * 1024;

function essence(mediaType: string): string {
  return mediaType.split(';')[0]!.trim().toLowerCase();
}

function isText(a: ArtifactLike): boolean {
  const m = essence(a.mediaType);
  return a.kind === 'log' || m.startsWith('text/') || m === 'application/json';
}

/** Reads a text artifact (its first TEXT_LIMIT bytes). */
function useText(appId: string, id: string, enabled: boolean): { text: string | null; error: boolean } {
  const [state, setState] = useState<{ text: string | null; error: boolean }>({ text: null, error: false });
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    api
      .GET('/v1/artifacts/{id}/content', {
        params: { path: { id } },
        headers: { ...factory(appId).headers, Range: `bytes=0-${TEXT_LIMIT - 1}` },
        parseAs: 'text',
      })
      .then(({ data }) => live && setState({ text: data ?? '', error: false }))
      .catch(() => live && setState({ text: null, error: true }));
    return () => {
      live = false;
    };
  }, [appId, id, enabled]);
  return state;
}

export function ArtifactView({ appId, artifact }: { appId: string; artifact: ArtifactLike }) {
  const url = artifactContentUrl(artifact.id, appId);
  const m = essence(artifact.mediaType);
  const html = m === 'text/html' || m === 'application/xhtml+xml';
  const text = !html && isText(artifact);
  const fetched = useText(appId, artifact.id, html || text);
  let body: React.ReactNode;
  if (m.startsWith('image/') && m !== 'image/svg+xml')
    body = <img src={url} alt={artifact.caption || artifact.filename} />;
  else if (m.startsWith('video/'))
    body = <video src={url} controls preload="metadata" aria-label={artifact.caption || artifact.filename} />;
  else if (html) {
    body =
      fetched.text !== null ? (
        <iframe
          sandbox=""
          srcDoc={fetched.text}
          title={artifact.caption || artifact.filename}
          referrerPolicy="no-referrer"
        />
      ) : (
        <p className="muted">{fetched.error ? 'The report could not be loaded.' : 'Loading report…'}</p>
      );
  } else if (text) {
    body =
      fetched.text !== null ? (
        <pre className="log">
          {fetched.text}
          {artifact.bytes > TEXT_LIMIT
            ? `\n… (${formatBytes(artifact.bytes - TEXT_LIMIT)} more; download the whole log)`
            : ''}
        </pre>
      ) : (
        <p className="muted">{fetched.error ? 'The log could not be loaded.' : 'Loading…'}</p>
      );
  } else body = <p className="muted">No preview for {artifact.mediaType}.</p>;
  return (
    <div className="artifact-body" data-kind={artifact.kind} data-media-type={m}>
      {body}
      <p>
        <a href={url} download={artifact.filename}>
          Download {artifact.filename}
        </a>{' '}
        <span className="muted">
          ({formatBytes(artifact.bytes)}, {artifact.mediaType})
        </span>
      </p>
    </div>
  );
}
