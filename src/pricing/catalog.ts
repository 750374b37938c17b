// The per-model price catalog, enumerated from @pydantic/genai-prices (no hand-kept price table).
// The package exports no list of providers, but waitForUpdate() resolves to the provider list currently in
// use (the bundled data, or newer data if prices were updated), which findProvider()/calcPrice() read too.
// Prices are USD per million tokens, as the package states them.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { ModelInfo, ModelPrice, Provider } from '@pydantic/genai-prices';
import { genaiPrices } from './package.js';

export interface PriceTier {
  /** The tier applies when the request's input tokens reach this many. */
  startTokens: number;
  perMTok: number;
}

/** One price: the base rate, and long-context tiers when the model has them. */
export interface TokenPrice {
  perMTok: number;
  tiers: PriceTier[];
}

export interface ModelPriceEntry {
  provider: string;
  providerName: string;
  model: string;
  name: string | null;
  input: TokenPrice | null;
  output: TokenPrice | null;
  cacheRead: TokenPrice | null;
  /** A cache write with the five-minute TTL. */
  cacheWrite: TokenPrice | null;
  /** A cache write with the one-hour TTL (Anthropic: 2× input); null when the model has no such rate. */
  cacheWrite1h: TokenPrice | null;
  /** The prices change with time (a dated change or a time-of-day rate); these are the ones in force at `at`. */
  conditional: boolean;
  deprecated: boolean;
}

export interface PriceCatalog {
  source: '@pydantic/genai-prices';
  /** The data version: the version of the genai-prices package the gateway runs with. */
  version: string;
  currency: 'USD';
  unit: 'per_million_tokens';
  /** The instant the conditional prices were resolved for (epoch ms). */
  at: number;
  models: ModelPriceEntry[];
}

function findPackageVersion(): string {
  // The package's exports map does not expose package.json; walk up from its resolved entry instead.
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve('@pydantic/genai-prices'));
  for (let i = 0; i < 5; i++) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@pydantic/genai-prices' && pkg.version) return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return 'unknown';
}

export const PRICE_DATA_VERSION = findPackageVersion();

function secondsOfDay(hhmmss: string): number {
  const [h, m, s] = hhmmss.replace(/Z$/, '').split(':').map(Number);
  return (h ?? 0) * 3600 + (m ?? 0) * 60 + (s ?? 0);
}

/**
 * The price set in force at `at`, by the package's own rule: the last conditional entry whose constraint
 * holds (a start date reached, or the time of day inside the window), else the first entry.
 */
export function pricesAt(model: ModelInfo, at: Date): ModelPrice {
  if (!Array.isArray(model.prices)) return model.prices;
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const entry = model.prices[i]!;
    const c = entry.constraint;
    if (!c) return entry.prices;
    if (c.type === 'start_date') {
      if (at.getTime() >= new Date(c.start_date).getTime()) return entry.prices;
    } else {
      const now =
        at.getUTCHours() * 3600 + at.getUTCMinutes() * 60 + at.getUTCSeconds() + at.getUTCMilliseconds() / 1000;
      const start = secondsOfDay(c.start_time);
      const end = secondsOfDay(c.end_time);
      if (end < start ? now >= start || now < end : now >= start && now < end) return entry.prices;
    }
  }
  return model.prices[0]!.prices;
}

function tokenPrice(value: ModelPrice[string]): TokenPrice | null {
  if (value === undefined) return null;
  if (typeof value === 'number') return { perMTok: value, tiers: [] };
  return { perMTok: value.base, tiers: value.tiers.map((t) => ({ startTokens: t.start, perMTok: t.price })) };
}

function entryOf(provider: Provider, model: ModelInfo, at: Date): ModelPriceEntry {
  const prices = pricesAt(model, at);
  return {
    provider: provider.id,
    providerName: provider.name,
    model: model.id,
    name: model.name ?? null,
    input: tokenPrice(prices.input_mtok),
    output: tokenPrice(prices.output_mtok),
    cacheRead: tokenPrice(prices.cache_read_mtok),
    cacheWrite: tokenPrice(prices.cache_write_mtok),
    cacheWrite1h: tokenPrice(prices.cache_write_1h_mtok),
    conditional: Array.isArray(model.prices),
    deprecated: model.deprecated === true,
  };
}

export interface CatalogFilter {
  /** Only this provider id (e.g. `anthropic`). */
  provider?: string;
}

/** Every model of every provider (or of one), with the prices in force at `at` (epoch ms). */
export async function priceCatalog(at: number, filter: CatalogFilter = {}): Promise<PriceCatalog> {
  const providers = (await genaiPrices().waitForUpdate()) ?? [];
  const when = new Date(at);
  const wanted = filter.provider?.toLowerCase();
  const models: ModelPriceEntry[] = [];
  for (const provider of providers) {
    if (wanted !== undefined && provider.id !== wanted) continue;
    for (const model of provider.models) models.push(entryOf(provider, model, when));
  }
  return {
    source: '@pydantic/genai-prices',
    version: PRICE_DATA_VERSION,
    currency: 'USD',
    unit: 'per_million_tokens',
    at,
    models,
  };
}

/** The provider ids the catalog knows. */
export async function priceProviders(): Promise<string[]> {
  return ((await genaiPrices().waitForUpdate()) ?? []).map((p) => p.id);
}
