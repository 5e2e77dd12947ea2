import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { signedHeaders } from '../../src/bot-client/signing.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

// The contract as a bot author reads it: the page must show what this file says.
type Schema = {
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: string[];
  description?: string;
  example?: unknown;
};
const SPEC_TEXT = readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8');
const spec = parse(SPEC_TEXT);
const schemas: Record<string, Schema> = spec.components.schemas;

/** Property names and required names of a schema, following `$ref` and `allOf`. */
function shape(schema: Schema): { names: string[]; required: string[] } {
  const target = schema.$ref ? schemas[schema.$ref.split('/').pop()!]! : schema;
  const parts = (target.allOf ?? []).map(shape);
  return {
    names: [...parts.flatMap((part) => part.names), ...Object.keys(target.properties ?? {})],
    required: [...parts.flatMap((part) => part.required), ...(target.required ?? [])],
  };
}

/** What each result reason means, from the `- \`value\`: meaning` items of its description. */
const meanings = new Map(
  [...schemas.ResultReason!.description!.matchAll(/^- `([^`]+)`: (.+)$/gm)].map(([, value, meaning]) => [
    value!,
    meaning!,
  ]),
);

// Distinct from every default, so the page can only show them by reading this server's settings.
const RATED = { RATED_TIME_LIMIT_MS: '1234', RATED_OVERAGE_MS: '4321' };

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(RATED), launchBrowser()]);
  site = await serve(h);
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  problems = pageProblems(page);
  await page.goto(`${site.origin}/protocol`);
  await page.locator('#protocol:not([hidden])').waitFor();
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await h?.close();
});

const texts = (selector: string) => page.locator(selector).allTextContents();

describe('GET /openapi.json', () => {
  it('answers the document of openapi.yaml, as JSON', async () => {
    const res = await request(h.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(spec);
  });
});

describe('the bot protocol page at /protocol', () => {
  describe.each([
    ['BotState', '#state-body'],
    ['BotAction', '#action-body'],
  ])('the %s section', (name, section) => {
    it('lists every field of the schema in openapi.yaml, saying which are required', async () => {
      const { names, required } = shape({ $ref: `#/components/schemas/${name}` });
      expect(names.length).toBeGreaterThan(1);
      const shown = await texts(`${section} table.fields tbody th`);
      for (const field of names) {
        expect(shown, field).toContain(field);
        const presence = await page.locator(`${section} tr[data-field="${field}"] td`).nth(1).textContent();
        expect(presence, field).toBe(required.includes(field) ? 'required' : 'optional');
      }
    });

    it("shows the schema's example as JSON", async () => {
      const example = await page.locator(`${section} pre`).first().textContent();
      expect(JSON.parse(example!)).toEqual(schemas[name]!.example);
    });
  });

  it('lists the fields of nested objects too, such as the rules options of the state', async () => {
    const shown = await texts('#state-body table.fields tbody th');
    for (const option of Object.keys(schemas.RulesOptions!.properties!))
      expect(shown).toContain(`rules.${option}`);
    expect(shown).toContain('opponent.rating');
  });

  it("explains the push protocol with the botTurn webhook's words and its signature headers", async () => {
    const turn = spec.webhooks.botTurn.post;
    const push = (await page.locator('#push-body').textContent())!;
    expect(push).toContain(turn.summary);
    expect(push).toContain('Standard Webhooks scheme');
    const headers = await texts('#signature-headers tbody th');
    expect(headers).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    // Spec text is shown as text: its <placeholders> are not swallowed as markup.
    expect(push).toContain('<webhook-id>.<webhook-timestamp>.<body>');
    expect(await texts('#push-body h3')).toContain('POST /v1/bots/me/check');
  });

  it('shows a signed call whose signature is the one the arena computes', async () => {
    const call = (await page.locator('#push-body pre').first().textContent())!;
    const [head, body] = call.split('\n\n') as [string, string];
    const headers: Record<string, string> = Object.fromEntries(
      head
        .split('\n')
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 2)]),
    );
    expect(JSON.parse(body)).toEqual(schemas.BotState!.example);
    const secret = (schemas.BotSecrets!.properties!.webhookSecret!.example as string) ?? '';
    expect(await page.locator('#push-body').textContent()).toContain(secret);
    const expected = signedHeaders(
      secret,
      String(headers['webhook-id']),
      Number(headers['webhook-timestamp']) * 1000,
      body,
    );
    expect(headers['webhook-signature']).toBe(expected['webhook-signature']);
  });

  it("explains the pull protocol with each pull operation's summary", async () => {
    const pull = (await page.locator('#pull-body').textContent())!;
    const operations = Object.entries(
      spec.paths as Record<string, Record<string, { tags?: string[]; summary: string }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.tags?.includes('Pull bots'))
        .map(([method, op]) => ({ heading: `${method.toUpperCase()} ${path}`, summary: op.summary })),
    );
    expect(operations.map((op) => op.heading)).toContain('POST /v1/matches/{matchId}/actions');
    const headings = await texts('#pull-body h3');
    for (const op of operations) {
      expect(headings).toContain(op.heading);
      expect(pull).toContain(op.summary);
    }
    expect(pull).toContain('event: yourTurn'); // the event stream's example
  });

  it("shows the fair play, house bot and matchmaking paragraphs of the API's introduction", async () => {
    const text = (await page.locator('#getting-matches-body').textContent())!;
    for (const lead of ['Getting matches.', 'House bots.', 'Fair play.']) expect(text).toContain(lead);
    expect(text).toContain('house-alphabeta-4');
    expect(await texts('#getting-matches-body h3')).toEqual(['GET /v1/bots/me']);
  });

  it("shows this server's rated time control and the bounds of the time options", async () => {
    const { rated, timeLimitMs } = h.config.limits;
    expect(rated.timeLimitMs).toBe(1234);
    const sentence = await page.locator('#rated-time').textContent();
    expect(sentence).toContain(`${rated.timeLimitMs} ms`);
    expect(sentence).toContain(`${rated.overageMs} ms`);
    const row = page.locator('#rules-options tr[data-option="timeLimitMs"]');
    await expect(row.locator('td.rated').textContent()).resolves.toBe(`${rated.timeLimitMs} ms`);
    await expect(row.textContent()).resolves.toContain(`${timeLimitMs.min} ms to ${timeLimitMs.max} ms`);
  });

  it('lists every fault reason and result reason with its meaning from the spec', async () => {
    const faults: string[] = schemas.Fault!.properties!.reason!.enum!;
    const reasons: string[] = schemas.ResultReason!.enum!;
    expect(faults.length).toBeGreaterThan(3);
    for (const reason of new Set([...reasons, ...faults])) {
      const meaning = meanings.get(reason);
      expect(meaning, `openapi.yaml explains ${reason}`).toBeTruthy();
      const cells = await page.locator(`#reasons tr[data-reason="${reason}"] td`).allTextContents();
      expect(cells, reason).toEqual([faults.includes(reason) ? 'fault' : '—', meaning!.replaceAll('`', '')]);
    }
    const faultFields = await texts('#faults-body table.fields tbody th');
    for (const field of Object.keys(schemas.Fault!.properties!)) expect(faultFields).toContain(field);
  });

  it("states the solo game's rules where the sheet is silent, and shows its state fields", async () => {
    const rules = (await texts('#solo-rules li')).join(' ');
    for (const decision of ['colour you choose', 'a disc the move flipped', 'a blank is of neither colour']) {
      expect(rules).toContain(decision);
    }
    expect(rules).toContain('hidden: true');
    expect(await texts('nav.toc a[href="#solo"]')).toEqual(['The solo game']);
    const stateFields = await texts('#state-body table.fields tbody th');
    for (const field of ['tokens', 'captured', 'score', 'legalActions']) expect(stateFields).toContain(field);
  });

  it('loads without console errors', async () => {
    await screenshot(page, 'protocol');
    expect(problems).toEqual([]);
  });

  it('fits a 375 px wide phone screen: tables and code scroll in their boxes', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    const phoneProblems = pageProblems(phone);
    await phone.goto(`${site.origin}/protocol#faults`);
    await phone.locator('#protocol:not([hidden])').waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await phone.evaluate('window.scrollY')).toBeGreaterThan(0); // followed the #faults link
    expect(await controlsOffScreen(phone)).toEqual([]);
    await screenshot(phone, 'protocol-375');
    expect(phoneProblems).toEqual([]);
    await phone.close();
  });

  it('is linked from the navigation of the other pages', async () => {
    await page.goto(`${site.origin}/register`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Bot protocol' }).click();
    await page.waitForURL('**/protocol');
    await page.locator('#protocol:not([hidden])').waitFor();
    expect(problems).toEqual([]);
  });
});
