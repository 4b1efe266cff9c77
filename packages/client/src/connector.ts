import type { ConnectorOptions } from './options.js';
import { Transport } from './transport.js';

/** What every connector has: its options and the transport built from them. */
export abstract class Connector {
  protected readonly transport: Transport;

  constructor(options: ConnectorOptions) {
    this.transport = new Transport(options);
  }

  /** The connector's options; `options.token` and `options.headers` may be changed at any time. */
  get options(): ConnectorOptions {
    return this.transport.options;
  }
}
