import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReplicaState } from '../core/readers.js';

/**
 * The read replicas (docs/scaling.md, "Read replicas"), as this process looked at them last
 * (every 100 ms): whether each is in use, how far behind the primary it is in WAL bytes and in
 * seconds, and the reads sent there. A replica that is down has no lag figures.
 */
export function replicaGauges(replicas: () => readonly ReplicaState[], registers: Registry[]): void {
  const gauges = [
    ['roost_database_replica_up', 'Whether this process reads from the replica (1) or gave up on it (0).', 'up'],
    [
      'roost_database_replica_lag_bytes',
      'WAL bytes the primary wrote that the replica has not replayed (only while it is up).',
      'lagBytes',
    ],
    [
      'roost_database_replica_lag_seconds',
      'Seconds since the replica replayed its newest transaction while WAL waits to be replayed; 0 when caught up.',
      'lagSeconds',
    ],
  ] as const;
  for (const [name, help, figure] of gauges)
    new Gauge({
      name,
      help,
      labelNames: ['replica'],
      registers,
      collect() {
        this.reset();
        for (const state of replicas()) {
          const value = state[figure];
          if (typeof value === 'boolean') this.set({ replica: state.replica }, value ? 1 : 0);
          else if (value !== null) this.set({ replica: state.replica }, value);
        }
      },
    });
  new Counter({
    name: 'roost_database_replica_reads_total',
    help: 'Reads of the stores this process sent to the replica.',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const state of replicas()) this.inc({ replica: state.replica }, state.reads);
    },
  });
}
