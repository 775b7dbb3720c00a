/**
 * Channels: the ways a timeline's action reaches a debtor (e-mail, SMS,
 * WhatsApp, AI call, voicemail drop, call by a person, letter), which of them
 * are telephone calls for the frequency rules, which cost credits by default,
 * and how they map onto the followup types of contract 2.4.
 */
import { Schema } from "effect";
import type { FollowupType } from "./Followup.ts";

/** Every channel, in the order the documentation lists them. */
export const channels = ["email", "sms", "whatsapp", "ai_call", "voicemail", "manual_call", "postmail"] as const;
export type Channel = (typeof channels)[number];

/** Schema of a channel; an invalid value is reported with the list of valid channels. */
export const Channel = Schema.Literal(...channels).annotations({
  identifier: "Channel",
  message: () => ({ message: `must be one of: ${channels.join(", ")}`, override: true }),
});

/**
 * The telephone calls: the channels that ring the debtor's phone. A voicemail
 * drop is a call that leaves a message, so the call caps and the cooldown
 * after a conversation count and hold it like the others (docs/decisions/0610).
 */
export const callChannels: ReadonlyArray<Channel> = ["ai_call", "manual_call", "voicemail"];

/** The channels that cost credits (decision 0152): calls, voicemail drops, SMS and WhatsApp. */
export const paidChannels: ReadonlyArray<Channel> = ["ai_call", "manual_call", "voicemail", "sms", "whatsapp"];

/** The channels that reach the debtor's phone number. */
export const phoneChannels: ReadonlyArray<Channel> = ["sms", "whatsapp", "ai_call", "voicemail", "manual_call"];

/** Tells whether a channel is a telephone call. */
export const isCall = (channel: Channel): boolean => callChannels.includes(channel);

/** Tells whether `text` names a channel. */
export const isChannel = (text: string): text is Channel => (channels as ReadonlyArray<string>).includes(text);

const byFollowupType: { readonly [type in FollowupType]: Channel | null } = {
  call: "ai_call",
  email: "email",
  sms: "sms",
  whatsapp: "whatsapp",
  voicemail: "voicemail",
  manual_call: "manual_call",
  postmail: "postmail",
  physical: null,
};

/**
 * The channel of a followup type: `call` is the AI call; `physical` (a visit
 * or a meeting) is no channel the engine sends on, so null.
 */
export const fromFollowupType = (type: FollowupType): Channel | null => byFollowupType[type];

const toFollowupType: { readonly [channel in Channel]: FollowupType } = {
  email: "email",
  sms: "sms",
  whatsapp: "whatsapp",
  ai_call: "call",
  voicemail: "voicemail",
  manual_call: "manual_call",
  postmail: "postmail",
};

/** The followup type a channel's executed action is recorded as. */
export const followupType = (channel: Channel): FollowupType => toFollowupType[channel];
