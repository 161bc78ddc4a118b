import { z } from 'zod';
import { booleanDefaultingTo, named } from './openflow.registry.js';

export const FlowNoteSchema = named(
  'FlowNote',
  'A sticky note attached to a flow for documentation and annotation.',
  z.looseObject({
    id: z.string(),
    text: z.string(),
    position: z.looseObject({ x: z.number(), y: z.number() }).optional(),
    size: z.looseObject({ width: z.number(), height: z.number() }).optional(),
    // Any colour is accepted: one the editor does not know renders unstyled.
    color: z.string(),
    // 'group' notes are deprecated in favour of FlowValue.groups, and still parse.
    type: z.enum(['free', 'group']),
    locked: booleanDefaultingTo(false),
    contained_node_ids: z.array(z.string()).optional(),
  }),
);

export const FlowGroupSchema = named(
  'FlowGroup',
  'A semantic group of modules, from start_id to end_id; it names and collapses them in the editor and never affects execution.',
  z.looseObject({
    summary: z.string().optional(),
    note: z.string().optional(),
    autocollapse: booleanDefaultingTo(false),
    start_id: z.string(),
    end_id: z.string(),
    color: z.string().optional(),
  }),
);

export type FlowNote = z.infer<typeof FlowNoteSchema>;
export type FlowGroup = z.infer<typeof FlowGroupSchema>;
