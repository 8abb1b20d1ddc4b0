/** `campaign-dialer gateway create`: gateways are made by admins, here or through the API. */
import type { Command } from 'commander';
import { registerGatewayCreate } from '../gateways/gateways.cli.ts';
import { voiceGateway } from './gateway.kind.ts';

export function registerGatewayCommands(program: Command): void {
  registerGatewayCreate(program, voiceGateway, {
    description: 'telephony gateways (the carriers campaigns dial through)',
    create: 'create a gateway and print its id',
    name: 'unique gateway name',
    driver: 'telephony driver: simulator or freeswitch',
    options: [
      ['--maximum-call <n>', 'calls at once through this gateway (default: no cap)'],
      ['--gateways <prefix>', 'dial-string prefix, e.g. sofia/gateway/carrier/'],
    ],
    body: (opts) => ({ maximum_call: opts.maximumCall, gateways: opts.gateways }),
  });
}
