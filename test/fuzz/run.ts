/**
 * The fuzz loop: one fast-check run is one request. A request with a finding not seen before
 * fails the property, so fast-check shrinks it to a minimal reproduction (re-sending smaller
 * requests that fail the same way); then the loop goes on with the rest of the budget, and
 * later requests with the same finding are only counted.
 */
import fc from 'fast-check';
import type { Database } from '../../src/db/database.ts';
import { type Answer, describe, type FuzzRequest, send } from './http.ts';
import { errorShape, type Finding, leak, noteCreated, serverError, type ServerErrors } from './oracles.ts';
import { operations, RequestSpace } from './requests.ts';
import { seed as seedWorld } from './seed.ts';
import { changedTables, startTarget, type Target } from './target.ts';

export interface FuzzOptions {
  database: Database;
  requests: number;
  seconds: number;
  seed: number;
  /** Requests a shrink may send before it stops at the smallest failure found so far. */
  shrinkBudget?: number;
  log?: (line: string) => void;
  /** Log every request and its status (FUZZ_TRACE=1). */
  trace?: boolean;
  /** Stops the run early (Ctrl-C); the report covers what was sent. */
  signal?: AbortSignal;
}

export interface Reported extends Finding {
  /** Requests that hit it in the main run (not counting shrinking). */
  hits: number;
  /** The operations it was seen on. */
  ops: string[];
  repro: string;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  shrinkRequests: number;
  seconds: number;
  statuses: Record<string, number>;
  counts: Record<Finding['kind'], number>;
  findings: Reported[];
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Wrong passwords sent at most this often: more would throttle the loopback address for all. */
const BAD_AUTH_CAP = 5;

function logSink(errors: ServerErrors): (line: string) => void {
  return (line) => {
    try {
      const entry = JSON.parse(line) as { reqId?: string; err?: { type?: string; message?: string; stack?: string } };
      if (!entry.reqId || !entry.err) return;
      const stack = (entry.err.stack ?? '').split('\n');
      const frame = stack.find((l) => l.includes('/src/') && !l.includes('node_modules')) ?? '';
      // A database error (Drizzle wraps it) is told by its cause, whichever query hit it.
      const cause = stack.filter((l) => l.startsWith('caused by: ')).pop()?.slice('caused by: '.length);
      if (errors.size > 1000) errors.clear();
      errors.set(entry.reqId, {
        type: entry.err.type ?? 'Error',
        message: entry.err.message ?? '',
        cause,
        frame: frame.trim().replace(/^.*\/src\//, 'src/').replace(/\)$/, ''),
      });
    } catch {
      // not a JSON log line
    }
  };
}

/** Runs the fuzzer against a fresh app on `database`; returns what it found. */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? (() => {});
  const errors: ServerErrors = new Map();
  const target: Target = await startTarget(options.database, String(options.seed), logSink(errors));
  const started = Date.now();
  try {
    const world = await seedWorld(target, options.database);
    const doc = (await (await fetch(`${target.base}/rest-api/openapi.json`)).json()) as Parameters<typeof operations>[0];
    const ops = operations(doc);
    const space = new RequestSpace(world, { a: target.actors.a.id, b: target.actors.b.id, admin: target.actors.admin.id });
    const arbitrary = fc.constantFrom(...ops).chain((op) => space.request(op));
    log(`fuzz: ${ops.length} operations on ${target.kind}, seeded ${world.owners.size} records; ${target.base}`);

    const report: FuzzReport = {
      seed: options.seed,
      requests: 0,
      shrinkRequests: 0,
      seconds: 0,
      statuses: {},
      counts: { '5xx': 0, leak: 0, 'rejected-write-changed': 0, 'error-shape': 0 },
      findings: [],
    };
    const known = new Map<string, Reported>();
    let badAuth = 0;

    // The digest after the last rejected write, while nothing else wrote: reads are taken not to
    // write, so the main run digests once per write; shrinking (which confirms) digests afresh.
    let lastDigest: Map<string, string> | undefined;
    /** Sends one request and applies every oracle. */
    const probe = async (generated: FuzzRequest, fresh: boolean): Promise<{ request: FuzzRequest; answer: Answer; findings: Finding[] }> => {
      const request = generated.auth === 'bad' && badAuth++ >= BAD_AUTH_CAP ? { ...generated, auth: 'basic' as const } : generated;
      const write = !READS.has(request.method);
      const before = write ? ((!fresh && lastDigest) || (await target.digest())) : undefined;
      if (write) lastDigest = undefined;
      const answer = await send(target, request);
      const findings = [serverError(request, answer, errors), errorShape(request, answer), leak(world, request, answer)].filter((f): f is Finding => !!f);
      if (before && answer.status >= 400 && answer.status < 500) {
        lastDigest = await target.digest();
        const changed = changedTables(before, lastDigest);
        if (changed.length) {
          findings.push({
            kind: 'rejected-write-changed',
            signature: `rejected write changed ${changed.join(',')}: ${request.op} → ${answer.status}`,
            detail: `tables changed: ${changed.join(', ')}`,
          });
        }
      }
      noteCreated(world, request, answer);
      return { request, answer, findings };
    };

    const budget = options.shrinkBudget ?? 300;
    const deadline = started + options.seconds * 1000;
    let shrinking: { signature: string; spent: number; last?: string } | undefined;
    const property = fc.asyncProperty(arbitrary, async (generated) => {
      if (shrinking) {
        if (shrinking.spent >= budget) return true;
        shrinking.spent++;
        report.shrinkRequests++;
        const { request, answer, findings } = await probe(generated, true);
        const same = findings.find((f) => f.signature === shrinking?.signature);
        if (same) shrinking.last = `${describe(target, request, answer)}${same.detail ? `\n    ${same.detail}` : ''}`;
        return !same;
      }
      if (report.requests >= options.requests || Date.now() > deadline || options.signal?.aborted) return true;
      report.requests++;
      if (report.requests % 1000 === 0) log(`fuzz: ${report.requests} requests, ${known.size} findings, ${Math.round((Date.now() - started) / 1000)} s`);
      const { request, answer, findings } = await probe(generated, false);
      report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
      if (options.trace) log(`${answer.status} ${request.method} ${request.url.slice(0, 100)} as ${request.actor} [${request.headers["content-type"] ?? ""}]: ${answer.text.slice(0, 200)}`);
      for (const f of findings) {
        report.counts[f.kind]++;
        const seen = known.get(f.signature);
        if (!seen) continue;
        seen.hits++;
        if (!seen.ops.includes(request.op)) seen.ops.push(request.op);
      }
      const fresh = findings.find((f) => !known.has(f.signature));
      if (!fresh) return true;
      known.set(fresh.signature, { ...fresh, hits: 1, ops: [request.op], repro: '' });
      for (const f of findings) if (!known.has(f.signature)) known.set(f.signature, { ...f, hits: 1, ops: [request.op], repro: describe(target, request, answer) });
      shrinking = { signature: fresh.signature, spent: 0, last: `${describe(target, request, answer)}${fresh.detail ? `\n    ${fresh.detail}` : ''}` };
      return false;
    });

    for (let round = 0; report.requests < options.requests && Date.now() < deadline && !options.signal?.aborted; round++) {
      const result = await fc.check(property, {
        seed: options.seed + round,
        numRuns: options.requests - report.requests,
        interruptAfterTimeLimit: Math.max(1, deadline - Date.now()),
        endOnFailure: false,
      });
      if (!result.failed) break;
      // A failure without a finding is the fuzzer's own error: say so rather than end quietly.
      if (!shrinking) throw new Error(`fuzz: the fuzzer failed after ${report.requests} requests: ${String(result.errorInstance)}`, { cause: result.errorInstance });
      const found = known.get(shrinking.signature) as Reported;
      found.repro = shrinking.last ?? '';
      log(`fuzz: finding ${known.size} after ${report.requests} requests (shrunk in ${shrinking.spent}): ${found.signature}\n${found.repro}`);
      shrinking = undefined;
    }
    report.findings = [...known.values()];
    report.seconds = (Date.now() - started) / 1000;
    return report;
  } finally {
    await target.close();
  }
}

/** The report as the fuzzer prints it at the end. */
export function summary(report: FuzzReport): string {
  const statuses = Object.entries(report.statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  const lines = [
    `fuzz: seed ${report.seed}; ${report.requests} requests (+${report.shrinkRequests} while shrinking) in ${report.seconds.toFixed(1)} s`,
    `  statuses: ${statuses}`,
    `  5xx: ${report.counts['5xx']}; leaks: ${report.counts.leak}; rejected writes that changed data: ${report.counts['rejected-write-changed']}; error bodies out of shape: ${report.counts['error-shape']}`,
    `  ${report.findings.length} distinct findings${report.findings.length ? ':' : '.'}`,
  ];
  report.findings.forEach((f, i) =>
    lines.push(`\n#${i + 1} [${f.kind}] ${f.signature} — ${f.hits} hit(s) on ${f.ops.length} operation(s): ${f.ops.slice(0, 12).join('; ')}\n${f.repro}`),
  );
  return lines.join('\n');
}
