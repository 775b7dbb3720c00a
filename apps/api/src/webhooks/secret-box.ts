/** The api's webhook secret box, derived once per master secret (docs/decisions/0451). */
import { makeWebhookSecretBox, type WebhookSecretBox } from "@dc/crypto";

const boxes = new WeakMap<Uint8Array, WebhookSecretBox>();

export const webhookSecretBox = (idEncryptionKey: Uint8Array): WebhookSecretBox => {
  let box = boxes.get(idEncryptionKey);
  if (box === undefined) {
    box = makeWebhookSecretBox(idEncryptionKey);
    boxes.set(idEncryptionKey, box);
  }
  return box;
};
