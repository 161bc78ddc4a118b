import { PinoNestLogger } from '@flowmesh/telemetry';

// Nest's start-up chatter (every module initialized, every route mapped): useful when
// debugging wiring, noise in seven interleaved processes otherwise.
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

/** Nest's logs through pino, with the framework's own info lines at debug level. */
export class ServiceNestLogger extends PinoNestLogger {
  override log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    if (typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) this.debug(message, ...params);
    else super.log(message, ...params);
  }
}
