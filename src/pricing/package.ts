// @pydantic/genai-prices, loaded on first use. Its bundled price data is about 10 MB of resident memory once
// parsed, and a gateway that has priced nothing yet does not need it (docs/performance.md, Memory).
// Pricing is synchronous (a session's cost is computed while its document is built), so the package is
// required synchronously, through its CommonJS build; every caller goes through here, so the process
// holds one copy of the package and its provider list.
import { createRequire } from 'node:module';

export type GenaiPrices = typeof import('@pydantic/genai-prices');

let loaded: GenaiPrices | null = null;

export function genaiPrices(): GenaiPrices {
  return (loaded ??= createRequire(import.meta.url)('@pydantic/genai-prices') as GenaiPrices);
}
