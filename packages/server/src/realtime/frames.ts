/** A frame of the stream's own (`connect`, `reload`, `close`), not of an event. */
export const controlFrame = (name: string, data: object, id?: string) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The frames of one event, each encoded once for every stream that gets it: by its data (what
 * a subscriber may see of it), then by the topic it is named after (the SSE event name).
 */
export class Frames {
  readonly #byData = new Map<string, Map<string, Buffer>>();
  constructor(
    readonly id: number,
    readonly eventId: string,
  ) {}

  of(text: string, data: string): Buffer {
    let byTopic = this.#byData.get(data);
    if (!byTopic) {
      byTopic = new Map();
      this.#byData.set(data, byTopic);
    }
    let frame = byTopic.get(text);
    if (!frame) {
      frame = Buffer.from(`id: ${this.eventId}\nevent: ${text}\ndata: ${data}\n\n`);
      byTopic.set(text, frame);
    }
    return frame;
  }
}
