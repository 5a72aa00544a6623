// A cluster's primary and one forked process, wired back to back in memory: what crosses is cloned, as IPC would.
import { EventEmitter } from 'node:events';
import type { IpcChannel, IpcHub, IpcPeer } from '../../config/cluster-ipc.ts';

export function clusterPair(): { hub: IpcHub & EventEmitter; channel: IpcChannel } {
  const hub = new EventEmitter();
  const child = new EventEmitter();
  const peer: IpcPeer = { send: (m) => child.emit('message', structuredClone(m)) };
  const channel: IpcChannel = {
    send: (m: unknown) => hub.emit('message', peer, structuredClone(m)),
    on: (e: 'message', l: (m: unknown) => void) => child.on(e, l),
    off: (e: 'message', l: (m: unknown) => void) => child.off(e, l),
  };
  return { hub: hub as IpcHub & EventEmitter, channel };
}
