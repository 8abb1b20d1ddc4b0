/** `campaign-dialer sms-gateway create`: SMS gateways are made by admins, here or through the API. */
import type { Command } from 'commander';
import { smsDriverNames } from '../../drivers/sms/index.ts';
import { registerGatewayCreate } from '../gateways/gateways.cli.ts';
import { smsGateway } from './sms-gateway.kind.ts';

export function registerSmsGatewayCommands(program: Command): void {
  registerGatewayCreate(program, smsGateway, {
    description: 'SMS gateways (what SMS campaigns send through)',
    create: 'create an SMS gateway and print its id',
    name: 'unique SMS gateway name',
    driver: `SMS driver: ${smsDriverNames.join(', ')}`,
  });
}
