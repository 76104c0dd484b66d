// Record comments: create (optionally as a reply) and edit.

import { z } from 'zod';

const text = z
  .string()
  .min(1, { error: 'the comment text must not be empty' })
  .meta({ description: 'Comment text; mention a user with @[usr…].' });

export const createCommentBody = z
  .strictObject({
    text,
    parentCommentId: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Comment id (com…) to reply to, making this a threaded reply.' }),
  })
  .meta({
    title: 'Create a comment',
    examples: [
      { text: 'Looks good to me.' },
      { text: '@[usrA1b2C3d4E5f6G7] agreed', parentCommentId: 'comA1b2C3d4E5f6G7' },
    ],
  });

export const updateCommentBody = z.strictObject({ text }).meta({
  title: 'Edit a comment',
  description: 'Replaces the text.',
  examples: [{ text: 'Fixed the typo.' }],
});
