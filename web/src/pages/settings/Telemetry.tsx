// Turning agent telemetry on (docs/telemetry.md): Claude Code's managed-settings.json block and Codex's
// config.toml block, filled with this gateway's URL and the factory id, and a button that creates an ingest key
// and puts it in both. The plaintext is shown once: it lives in this component's state only.
import { useState } from 'react';
import { createKey, type CreatedKey } from './query';

const KEY_PLACEHOLDER = '<ingest key: create one below>';

/** Claude Code's managed settings for an organisation-wide rollout. */
export function claudeCodeSettings(url: string, appId: string, key: string): string {
  return JSON.stringify(
    {
      env: {
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        OTEL_LOGS_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_ENDPOINT: url,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${key},X-Outerlayer-App-Id=${appId}`,
        OTEL_LOGS_EXPORT_INTERVAL: '5000',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
      },
    },
    null,
    2,
  );
}

/** Codex's [otel] table (its endpoint is the full logs URL). Values are JSON strings, which TOML reads alike. */
export function codexConfig(url: string, appId: string, key: string): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    '[otel]',
    'environment = "prod"',
    'log_user_prompt = false',
    `exporter = { otlp-http = { endpoint = ${q(`${url}/v1/logs`)}, protocol = "binary", headers = { "Authorization" ` +
      `= ${q(`Bearer ${key}`)}, "X-Outerlayer-App-Id" = ${q(appId)} } } }`,
  ].join('\n');
}

export function TelemetrySection({ appId, canCreateKey }: { appId: string; canCreateKey: boolean }) {
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const url = window.location.origin;
  const key = created?.plaintext_key ?? KEY_PLACEHOLDER;
  const create = async () => {
    setPending(true);
    try {
      const name = `telemetry ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`;
      setCreated(await createKey(appId, { name, preset: 'ingest' }));
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(false);
    }
  };
  return (
    <section className="settings-section" aria-labelledby="telemetry-title" data-testid="telemetry">
      <h2 id="telemetry-title">Agent telemetry (OpenTelemetry)</h2>
      <p className="muted">
        Claude Code and Codex send their own telemetry here; every developer's sessions show up live, with nothing
        installed on a laptop. Put the first block in Claude Code's managed-settings.json and the second in Codex's
        config.toml.
      </p>
      {canCreateKey && !created && (
        <button type="button" onClick={create} disabled={pending} data-testid="telemetry-create-key">
          Create an ingest key and fill it in
        </button>
      )}
      {created && (
        <p className="muted" data-testid="telemetry-key-once">
          A new ingest key, <strong>{created.name}</strong>, is in both blocks. It is shown only now: copy the blocks
          before you leave this page.
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p>
        <strong>Claude Code</strong>, in <code>managed-settings.json</code>:
      </p>
      <pre data-testid="telemetry-claude-code">{claudeCodeSettings(url, appId, key)}</pre>
      <p>
        <strong>Codex</strong>, in <code>config.toml</code>:
      </p>
      <pre data-testid="telemetry-codex">{codexConfig(url, appId, key)}</pre>
    </section>
  );
}
