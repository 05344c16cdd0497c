// The LISTEN/NOTIFY channel names. A parent's is also spelled by sql/0008's parent_event.
import type { ParentKind } from './lifecycle.ts';

const hex = (id: string) => id.replaceAll('-', '').toLowerCase();

/** The channel of one scenario's events: NOTIFYd with the new seq by every statement that appends one. */
export const scenarioChannel = (id: string): string => `scenario_${hex(id)}`;

/** The channel of one sweep's or optimization's events (written by sql/0008's parent_event). */
export const parentChannel = (kind: ParentKind, id: string): string => `${kind}_${hex(id)}`;
