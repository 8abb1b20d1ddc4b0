/**
 * Code blocks of README.md that tests run as written, so the README cannot drift from what works:
 * the worked example (`sh`, test/readme-example.test.ts) and the signature check an integrator
 * copies (`js`, test/webhooks.test.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const README = path.resolve(import.meta.dirname, '..', 'README.md');

/** The first fenced `lang` block after the text `marker` in README.md. */
export function readmeBlock(marker: string, lang: 'sh' | 'js'): string {
  const readme = fs.readFileSync(README, 'utf8');
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `README.md has no "${marker}"`);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(readme.slice(at));
  assert.ok(m, `no \`\`\`${lang} block after "${marker}" in README.md`);
  return m[1];
}

export type SignatureCheck = (secret: string, rawBody: string, header: string, toleranceSeconds?: number) => boolean;

/** The README's "Verifying a signature (Node)" function `verified`, loaded as the module it is written as. */
export async function readmeSignatureCheck(): Promise<SignatureCheck> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-'));
  const file = path.join(dir, 'verify.mjs');
  try {
    fs.writeFileSync(file, `${readmeBlock('Verifying a signature (Node', 'js')}\nexport { verified };\n`);
    const loaded = (await import(pathToFileURL(file).href)) as { verified?: SignatureCheck };
    assert.equal(typeof loaded.verified, 'function', "the README's signature block defines no function `verified`");
    return loaded.verified as SignatureCheck;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
