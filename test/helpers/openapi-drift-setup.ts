// Vitest setup file (vitest.config.ts): fails the test in which a gateway sent an answer that the OpenAPI
// document does not describe (test/helpers/openapi-drift.ts records them). Answers sent by a file's
// beforeAll fail its first test; those sent by afterAll (or in a file whose tests were all skipped) fail
// the file.
import { afterAll, afterEach, beforeEach } from 'vitest';
import { takeDriftViolations } from './openapi-drift.js';

function failOn(when: string): void {
  const found = takeDriftViolations();
  if (found.length === 0) return;
  throw new Error(
    `${found.length} answer(s) ${when} do not match the OpenAPI document (GET /v1/openapi.json). ` +
      `Fix the route's response schema, or the route where docs/spec/gateway-api-spec.md says it is wrong:\n- ` +
      `${found.join('\n- ')}`,
  );
}

beforeEach(() => failOn('sent before this test (by beforeAll, or late by an earlier test)'));
afterEach(() => failOn('sent by this test'));
afterAll(() => failOn('sent after the last test (by afterAll)'));
