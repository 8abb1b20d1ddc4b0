/**
 * What every browser test shares: Debian's Chromium (a peer, scripts/peers.js; a browser
 * download never works here), the flags it needs on this machine's closed network, and where
 * screenshots go (git-ignored; look at them, they are the review of the layout).
 */
import path from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';
export const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SHOTS = path.resolve('test-output/screenshots');
