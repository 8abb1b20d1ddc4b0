#!/usr/bin/env node
// The campaign-dialer command. The sources are TypeScript run through tsx, so that an
// `npm install` leaves the command runnable with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
