/**
 * `npm run demo:sip`: a small campaign through the `sip` driver to sipp playing a carrier on
 * loopback, so an operator hears, in a WAV per call, what their contacts will hear.
 *
 * It starts sipp (test/sip/echo-carrier.xml with -rtp_echo: answers, presses 1, echoes our RTP;
 * a number ending in 2 is busy), tcpdump capturing the SIP and RTP to and from sipp, and the real
 * server (`campaign-dialer serve`) on a throwaway DATA_DIR (embedded PGlite). Through the HTTP
 * API it creates a sip gateway pointing at sipp, uploads a prompt (made with espeak-ng), builds
 * a survey (the uploaded prompt asking for a key, then a spoken goodbye), a phonebook of three
 * contacts and a campaign, starts it and waits for its end. The RTP that reached sipp's media
 * port is cut per call (by the INVITE's SDP) and written as a WAV with sox. Everything started
 * is stopped by its pid; the work directory (WAVs, capture, database) is kept and printed.
 *
 * The same pieces run test/sip/echo.test.ts, on both databases.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Backend, type Server, startServer } from '../bench/support.ts';
import { CallRequestStatus, SubscriberStatus } from '../src/db/schema.ts';
import { type Sipp, startSipp } from '../test/sip/media/peers.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ECHO_SCENARIO = path.resolve(here, '../test/sip/echo-carrier.xml');

/** The programs the demo runs, each from a Debian package `node scripts/peers.js` installs as root. */
const TOOLS = { sipp: 'sip-tester', tcpdump: 'tcpdump', 'espeak-ng': 'espeak-ng', sox: 'sox' } as const;

/** Names the tools that do not run here (spawn fails), with their packages. */
export function missingTools(): string[] {
  return Object.entries(TOOLS)
    .filter(([tool]) => spawnSync(tool, ['--help'], { stdio: 'ignore', timeout: 10_000 }).error !== undefined)
    .map(([tool, pkg]) => `${tool} (Debian ${pkg})`);
}

export function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(command, args, (err, _out, stderr) => (err ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || err.message}`)) : resolve())),
  );
}

// ---- the carrier: sipp answering and echoing, tcpdump capturing what reaches it ----

export interface Capture {
  file: string;
  /** Stops tcpdump (by its pid) once it has written every packet it saw. */
  stop(): Promise<void>;
}

/** tcpdump on the loopback interface, writing the UDP packets to or from `ports` to `file`. */
export async function startCapture(file: string, ports: number[]): Promise<Capture> {
  const filter = `udp and (${ports.map((p) => `port ${p}`).join(' or ')})`;
  // --immediate-mode and -U: each packet is handed over and written as it comes (else the last
  // second's may still sit in the kernel's buffer when tcpdump is stopped); -Z root: keep the
  // rights to write where we asked (tcpdump otherwise drops to its own user when run as root).
  const args = ['-i', 'lo', '-n', '--immediate-mode', '-U', '-Z', 'root', '-w', file, filter];
  const child = spawn('tcpdump', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      if (/listening on/.test(stderr)) resolve();
    });
    child.once('error', (err) => reject(new Error(`cannot run tcpdump (${err.message}): run "node scripts/peers.js" as root to install it`)));
    void exited.then((code) => reject(new Error(`tcpdump exited (${code}): ${stderr.trim()}\n(capturing needs root, or CAP_NET_RAW on tcpdump)`)));
  });
  return {
    file,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}

export interface Carrier {
  sipp: Sipp;
  capture: Capture;
  /** The proxy setting of a gateway pointing at this carrier. */
  proxy: string;
  stop(): Promise<void>;
}

/** sipp as an echoing carrier on loopback, with tcpdump capturing its SIP and RTP into `dir`. */
export async function startCarrier(dir: string): Promise<Carrier> {
  const sipp = await startSipp(['-sf', ECHO_SCENARIO, '-rtp_echo', '-trace_err', '-error_file', path.join(dir, 'sipp-errors.log')], { cwd: dir });
  let capture: Capture;
  try {
    // Both bind at once; a sipp that could not (a port taken meanwhile) has exited by then.
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (sipp.proc.exitCode !== null) throw new Error(`sipp exited (${sipp.proc.exitCode}); see ${dir}/sipp-errors.log`);
    capture = await startCapture(path.join(dir, 'carrier.pcap'), [sipp.sipPort, sipp.mediaPort]);
  } catch (err) {
    await sipp.stop();
    throw err;
  }
  return {
    sipp,
    capture,
    proxy: `127.0.0.1:${sipp.sipPort}`,
    async stop() {
      await capture.stop();
      await sipp.stop();
    },
  };
}

// ---- reading the capture ----

export interface Datagram {
  /** Capture time, ms since the epoch. */
  at: number;
  srcPort: number;
  dstPort: number;
  data: Buffer;
}

/** The UDP datagrams of a pcap file written by tcpdump on Linux's loopback (Ethernet frames, IPv4). */
export function readPcap(buf: Buffer): Datagram[] {
  const magic = buf.readUInt32LE(0);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const u32 = (at: number) => (little ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const nano = u32(0) === 0xa1b23c4d;
  if (!little && ![0xa1b2c3d4, 0xa1b23c4d].includes(buf.readUInt32BE(0))) throw new Error('not a pcap file');
  if (u32(20) !== 1) throw new Error(`pcap link type ${u32(20)}: expected Ethernet (tcpdump -i lo)`);
  const out: Datagram[] = [];
  for (let at = 24; at + 16 <= buf.length; ) {
    const seconds = u32(at);
    const fraction = u32(at + 4);
    const length = u32(at + 8);
    const frame = buf.subarray(at + 16, at + 16 + length);
    at += 16 + length;
    if (frame.length < 14 + 20 + 8 || frame.readUInt16BE(12) !== 0x0800) continue;
    const ip = frame.subarray(14);
    if (ip[0] >> 4 !== 4 || ip[9] !== 17) continue;
    const udp = ip.subarray((ip[0] & 15) * 4);
    out.push({
      at: seconds * 1000 + (nano ? fraction / 1e6 : fraction / 1e3),
      srcPort: udp.readUInt16BE(0),
      dstPort: udp.readUInt16BE(2),
      data: udp.subarray(8, udp.readUInt16BE(4)),
    });
  }
  return out;
}

/** One call as the carrier saw it on the wire. */
export interface WireCall {
  callId: string;
  number: string;
  /** Our RTP port, from the INVITE's SDP. */
  rtpPort: number;
  invitedAt: number;
  answeredAt?: number;
  /** The first BYE, or the INVITE's final failure response. */
  endedAt?: number;
  /** G.711 payload type of our audio (0 PCMU, 8 PCMA) and its packets in arrival order. */
  payloadType?: number;
  payloads: { timestamp: number; payload: Buffer }[];
  /** RTP packets sipp sent back to our port (its echo). */
  echoed: number;
}

const header = (text: string, name: string, compact: string) => new RegExp(`^(?:${name}|${compact})\\s*:\\s*(.+?)\\s*$`, 'mi').exec(text)?.[1];

/** The calls to the carrier in a capture: their SIP times and the audio that reached it. */
export function wireCalls(datagrams: Datagram[], carrier: { sipPort: number; mediaPort: number }): WireCall[] {
  const calls = new Map<string, WireCall>();
  const byRtpPort = new Map<number, WireCall>();
  for (const d of datagrams) {
    if (d.srcPort === carrier.sipPort || d.dstPort === carrier.sipPort) {
      const text = d.data.toString('latin1');
      const callId = header(text, 'Call-ID', 'i');
      if (!callId) continue;
      const isInvite = /^CSeq\s*:\s*\d+\s+INVITE/im.test(text);
      if (text.startsWith('INVITE ') && !calls.has(callId)) {
        const call: WireCall = {
          callId,
          number: /^INVITE sips?:([^@;>]+)@/.exec(text)?.[1] ?? '',
          rtpPort: Number(/^m=audio (\d+)/m.exec(text)?.[1] ?? 0),
          invitedAt: d.at,
          payloads: [],
          echoed: 0,
        };
        calls.set(callId, call);
        byRtpPort.set(call.rtpPort, call);
        continue;
      }
      const call = calls.get(callId);
      if (!call) continue;
      const status = Number(/^SIP\/2\.0 (\d{3})/.exec(text)?.[1] ?? 0);
      if (isInvite && status >= 200 && status < 300) call.answeredAt ??= d.at;
      else if (isInvite && status >= 300) call.endedAt ??= d.at;
      else if (text.startsWith('BYE ')) call.endedAt ??= d.at;
    } else if (d.dstPort === carrier.mediaPort) {
      const call = byRtpPort.get(d.srcPort);
      const rtp = call && parseRtpPayload(d.data);
      if (!call || !rtp || (rtp.payloadType !== 0 && rtp.payloadType !== 8)) continue;
      call.payloadType ??= rtp.payloadType;
      if (rtp.payloadType === call.payloadType) call.payloads.push({ timestamp: rtp.timestamp, payload: rtp.payload });
    } else if (d.srcPort === carrier.mediaPort) {
      const call = byRtpPort.get(d.dstPort);
      if (call) call.echoed++;
    }
  }
  return [...calls.values()];
}

/** An RTP packet's payload type and payload (RFC 3550 §5.1: after the CSRCs and any extension). */
function parseRtpPayload(b: Buffer): { payloadType: number; timestamp: number; payload: Buffer } | undefined {
  if (b.length < 12 || b[0] >> 6 !== 2) return undefined;
  let offset = 12 + (b[0] & 15) * 4;
  if (b[0] & 0x10) {
    if (b.length < offset + 4) return undefined;
    offset += 4 + b.readUInt16BE(offset + 2) * 4;
  }
  let end = b.length;
  if (b[0] & 0x20) end -= b[b.length - 1]; // padding
  return offset <= end ? { payloadType: b[1] & 0x7f, timestamp: b.readUInt32BE(4), payload: b.subarray(offset, end) } : undefined;
}

/**
 * Writes a call's audio as a 16-bit 8 kHz WAV, decoded from G.711 by sox; returns its seconds.
 * Each payload goes where its RTP timestamp puts it, so a gap in the stream (frames our sender
 * skipped after a stall) is heard as the silence it was.
 */
export async function writeHeard(call: WireCall, file: string): Promise<number> {
  const raw = `${file}.g711`;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const first = call.payloads[0]?.timestamp ?? 0;
  const at = (p: { timestamp: number }) => (p.timestamp - first) >>> 0;
  const last = call.payloads.reduce((end, p) => Math.max(end, at(p) + p.payload.length), 0);
  const audio = Buffer.alloc(last, call.payloadType === 8 ? 0xd5 : 0xff); // G.711 silence
  for (const p of call.payloads) if (at(p) < last) p.payload.copy(audio, at(p));
  await fs.writeFile(raw, audio);
  try {
    await run('sox', ['-t', call.payloadType === 8 ? 'al' : 'ul', '-r', '8000', '-c', '1', raw, '-e', 'signed-integer', '-b', '16', file]);
  } finally {
    await fs.rm(raw, { force: true });
  }
  return audio.length / 8000;
}

// ---- the campaign, through the HTTP API ----

export interface Api {
  base: string;
  authorization: string;
}

/** A record as the API answers it: the fields this script reads. */
interface Rec {
  id: number;
  url: string;
  status: number;
}

async function send<T = Rec>(api: Api, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url.startsWith('http') ? url : `${api.base}/rest-api/${url}`, {
    method,
    headers: { authorization: api.authorization, ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Every record of a paged list. */
async function list<T>(api: Api, url: string): Promise<T[]> {
  const out: T[] = [];
  for (let next: string | null = url; next; ) {
    const page: { results: T[]; next: string | null } = await send(api, 'GET', next);
    out.push(...page.results);
    next = page.next;
  }
  return out;
}

export const PROMPT_TEXT = 'Hello. This is a reminder of your appointment tomorrow at ten. Press 1 to confirm, or 2 to cancel.';
export const CONFIRMED_TEXT = 'Thank you, your appointment is confirmed. Goodbye.';

export interface CallReport {
  number: string;
  callid: string;
  disposition: string;
  q850: number;
  duration: number;
  billsec: number;
  /** The key the survey's question got ('' none). */
  key: string;
}

export interface CampaignReport {
  campaignId: number;
  status: number;
  subscribers: { contact: string; status: number }[];
  callrequests: { phone_number: string; status: number; hangup_cause_q850: number | null; request_uuid: string }[];
  calls: CallReport[];
}

/**
 * Through the API (as an admin): a sip gateway to `proxy`, the prompt uploaded from `promptWav`,
 * a survey (the prompt asks for 1 or 2; a spoken goodbye for each), a phonebook of `numbers`, a
 * campaign on them; starts it and waits (up to `seconds`) until it has ended.
 */
export async function runSipCampaign(
  api: Api,
  opts: { proxy: string; promptWav: string; numbers: string[]; seconds?: number; recordCalls?: boolean },
): Promise<CampaignReport> {
  const tag = crypto.randomBytes(3).toString('hex');
  const gateway = await send(api, 'POST', 'gateway/', {
    name: `sipp carrier ${tag}`,
    driver: 'sip',
    maximum_call: 10,
    settings: { proxy: opts.proxy, bind_address: '127.0.0.1', bind_port: 0, cps: 5, codecs: ['PCMU'] },
  });
  const form = new FormData();
  form.append('name', 'Appointment reminder');
  form.append('audio_file', new Blob([await fs.readFile(opts.promptWav)], { type: 'audio/wav' }), path.basename(opts.promptWav));
  const audio = await send(api, 'POST', 'audio-files/', form);
  const survey = await send(api, 'POST', 'survey-template/', { name: `Reminder ${tag}` });
  const question = await send(api, 'POST', 'section-template/', {
    survey: survey.url, type: 2, question: 'Confirm?', audiofile: `${api.base}/rest-api/audio-files/${audio.id}/`, timeout: 5, key_1: 'confirm', key_2: 'cancel',
  });
  const confirmed = await send(api, 'POST', 'section-template/', { survey: survey.url, type: 7, question: 'Confirmed', script: CONFIRMED_TEXT, completed: true });
  const cancelled = await send(api, 'POST', 'section-template/', { survey: survey.url, type: 7, question: 'Cancelled', script: 'Your appointment is cancelled. Goodbye.', completed: true });
  await send(api, 'POST', 'branching-template/', { section: question.url, keys: '1', goto: confirmed.url });
  await send(api, 'POST', 'branching-template/', { section: question.url, keys: '2', goto: cancelled.url });
  const book = await send(api, 'POST', 'phonebook/', { name: `Demo ${tag}` });
  for (const number of opts.numbers) await send(api, 'POST', 'contact/', { phonebook: book.url, contact: number, full_name: `Contact ${number}` });
  const campaign = await send(api, 'POST', 'campaigns/', {
    name: `SIP demo ${tag}`, callerid: '+15550000000', caller_name: 'Demo clinic', phonebook: [book.url], object_id: survey.id,
    aleg_gateway: gateway.url, frequency: 120, calltimeout: 10, callmaxduration: 60, end_when_done: true, record_calls: opts.recordCalls ?? false,
  });
  await send(api, 'PATCH', campaign.url, { status: 1 });
  const deadline = Date.now() + (opts.seconds ?? 120) * 1000;
  let status = 1;
  while (status !== 4 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    status = (await send(api, 'GET', campaign.url)).status;
  }
  const subscribers = await send<{ duplicate_contact: string; status: number }[]>(api, 'GET', `subscriber-list/?campaign_id=${campaign.id}`);
  const callrequests = await list<CampaignReport['callrequests'][number] & { results: string }>(api, `callrequest/?campaign_id=${campaign.id}`);
  const cdrs = await list<{ callid: string; phone_number: string; disposition: string; hangup_cause_q850: number; duration: number; billsec: number; leg_type: number }>(
    api,
    `cdr/?campaign_id=${campaign.id}`,
  );
  const calls: CallReport[] = [];
  for (const cdr of cdrs.filter((c) => c.leg_type === 1).sort((a, b) => a.phone_number.localeCompare(b.phone_number))) {
    const request = callrequests.find((r) => r.request_uuid === cdr.callid);
    const results = request ? await list<{ question: string; response: string }>(api, request.results) : [];
    calls.push({
      number: cdr.phone_number,
      callid: cdr.callid,
      disposition: cdr.disposition,
      q850: cdr.hangup_cause_q850,
      duration: cdr.duration,
      billsec: cdr.billsec,
      key: results.find((r) => r.question === 'Confirm?')?.response ?? '',
    });
  }
  return {
    campaignId: campaign.id,
    status,
    subscribers: subscribers.map((s) => ({ contact: s.duplicate_contact, status: s.status })),
    callrequests: callrequests.map((r) => ({ phone_number: r.phone_number, status: r.status, hangup_cause_q850: r.hangup_cause_q850, request_uuid: r.request_uuid })),
    calls,
  };
}

/** The real server on `backend` with the engine, quiet but for warnings. */
export async function startDialer(backend: Backend, adminPassword: string): Promise<{ server: Server; api: Api }> {
  const server = await startServer(backend, adminPassword, { LOG_LEVEL: 'warn' }, 'all');
  return { server, api: { base: server.base, authorization: `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}` } };
}

// ---- the demo ----

const nameOf = (table: Record<string, number>, value: number) => Object.entries(table).find(([, v]) => v === value)?.[0] ?? String(value);

async function main(): Promise<void> {
  const missing = missingTools();
  if (missing.length) {
    console.error(`demo:sip needs ${missing.join(', ')}.\nInstall them with: sudo node scripts/peers.js   (as root it apt-get installs every missing peer)`);
    process.exit(1);
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'campaign-dialer-demo-'));
  const dataDir = path.join(dir, 'data');
  const stops: (() => Promise<void>)[] = [];
  // One stopping for all who ask (the end, an error, Ctrl-C), each waiting for it to be over.
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const stop of stops.reverse()) await stop().catch((err: Error) => console.error(`while stopping: ${err.message}`));
    })());
  process.once('SIGINT', () => {
    console.error('interrupted: stopping what the demo started …');
    void stopAll().then(() => process.exit(130));
  });
  try {
    console.log(`work directory: ${dir}`);
    const promptWav = path.join(dir, 'prompt.wav');
    await run('espeak-ng', ['-w', promptWav, '--', PROMPT_TEXT]);
    const carrier = await startCarrier(dir);
    stops.push(() => carrier.stop());
    console.log(`sipp (pid ${carrier.sipp.proc.pid}) answers as the carrier at ${carrier.proxy}, RTP echo on port ${carrier.sipp.mediaPort}; tcpdump captures to ${carrier.capture.file}`);
    const backend: Backend = { name: 'PGlite', env: { DATA_DIR: dataDir, DATABASE_URL: '' }, cleanup: async () => {} };
    console.log('starting campaign-dialer serve on a fresh embedded database (the first start migrates it) …');
    const { server, api } = await startDialer(backend, crypto.randomBytes(12).toString('hex'));
    stops.push(() => server.stop());
    console.log(`server (pid ${server.pid}) at ${server.base}, DATA_DIR=${dataDir}`);
    const numbers = ['+15550100001', '+15550100002', '+15550100003'];
    console.log(`campaign: ${numbers.length} contacts (${numbers[1]} is busy at this carrier); a prompt asking for a key, then a spoken goodbye …`);
    const report = await runSipCampaign(api, { proxy: carrier.proxy, promptWav, numbers });
    await stopAll();
    const wire = wireCalls(readPcap(await fs.readFile(carrier.capture.file)), carrier.sipp);
    console.log(`\ncampaign ${report.campaignId}: ${report.status === 4 ? 'END' : `status ${report.status} (did not end in time)`}`);
    for (const s of report.subscribers) console.log(`  subscriber ${s.contact}: ${nameOf(SubscriberStatus, s.status)}`);
    for (const r of report.callrequests) console.log(`  call request ${r.phone_number}: ${nameOf(CallRequestStatus, r.status)}`);
    console.log('\ncalls:');
    for (const call of report.calls) {
      const onWire = wire.find((w) => w.callId === call.callid);
      let heard = 'no audio (not answered)';
      if (onWire && onWire.payloads.length > 0) {
        const file = path.join(dir, 'heard', `${call.number.replace(/\W/g, '')}.wav`);
        const seconds = await writeHeard(onWire, file);
        heard = `${file} (${seconds.toFixed(1)} s, ${onWire.payloads.length} RTP packets reached sipp, it echoed ${onWire.echoed})`;
      }
      console.log(`  ${call.number}  ${call.disposition.padEnd(10)} Q.850 ${String(call.q850).padEnd(3)} duration ${call.duration} s, billsec ${call.billsec} s, key ${call.key || '-'}`);
      console.log(`    heard: ${heard}`);
    }
    console.log(`\nListen with: play ${path.join(dir, 'heard', '*.wav')}   (sox); remove the work directory when done: rm -rf ${dir}`);
    if (report.status !== 4) process.exitCode = 1;
  } finally {
    await stopAll();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: Error) => {
    console.error(`demo:sip failed: ${err.message}`);
    process.exit(1);
  });
}

