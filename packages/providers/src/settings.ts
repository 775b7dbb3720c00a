/**
 * The providers' platform-wide configuration (docs/decisions/0630,
 * docs/channels.md): one set of environment variables that the api (to
 * verify callbacks) and the worker (to send) both decode with these
 * fields. A provider whose credentials are unset is not configured: a live
 * company's step on its channel fails with `channel_not_configured`, and its
 * callbacks are refused.
 */
import { Schema } from "effect";

const HttpUrl = Schema.String.pipe(
  Schema.filter((value) => {
    if (!URL.canParse(value)) return "must be an http or https URL";
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" || "must be an http or https URL";
  }),
);
const E164 = Schema.String.pipe(
  Schema.pattern(/^\+[1-9]\d{6,14}$/, { message: () => "must be an E.164 number such as +14155550100" }),
);
const Secret = Schema.String.pipe(Schema.minLength(8));
const positiveInt = (max: number) => Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, max));

/** Spread into an app's environment schema. */
export const providerVariables = {
  TWILIO_BASE_URL: Schema.optionalWith(HttpUrl, { default: () => "https://api.twilio.com" }),
  TWILIO_ACCOUNT_SID: Schema.optional(Schema.String.pipe(Schema.minLength(2))),
  TWILIO_AUTH_TOKEN: Schema.optional(Secret),
  TWILIO_SMS_FROM: Schema.optional(E164),
  TWILIO_WHATSAPP_FROM: Schema.optional(E164),
  RETELL_BASE_URL: Schema.optionalWith(HttpUrl, { default: () => "https://api.retellai.com" }),
  RETELL_API_KEY: Schema.optional(Secret),
  RETELL_FROM_NUMBER: Schema.optional(E164),
  LOB_BASE_URL: Schema.optionalWith(HttpUrl, { default: () => "https://api.lob.com" }),
  LOB_API_KEY: Schema.optional(Secret),
  LOB_WEBHOOK_SECRET: Schema.optional(Secret),
  LOB_FROM_ADDRESS: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^adr_[A-Za-z0-9]+$/, { message: () => "must be a Lob address id (adr_...)" })),
  ),
  PROVIDER_SEND_RATE: Schema.optionalWith(positiveInt(10_000), { default: () => 10 }),
  PROVIDER_CONCURRENCY: Schema.optionalWith(positiveInt(1_000), { default: () => 4 }),
  PROVIDER_MAX_ATTEMPTS: Schema.optionalWith(positiveInt(10), { default: () => 4 }),
};

type ProviderValues = {
  readonly [K in keyof typeof providerVariables]: Schema.Schema.Type<(typeof providerVariables)[K]>;
};

export interface TwilioSettings {
  readonly baseUrl: string;
  readonly accountSid: string;
  readonly authToken: string;
  /** Unset: live SMS steps are not configured. */
  readonly smsFrom: string | undefined;
  /** Unset: live WhatsApp steps are not configured. */
  readonly whatsappFrom: string | undefined;
}

export interface RetellSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fromNumber: string | undefined;
}

export interface LobSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly webhookSecret: string | undefined;
  /** The return address of every letter, saved in Lob (`adr_...`); unset: live letters are not configured. */
  readonly fromAddress: string | undefined;
}

export interface ProviderSettings {
  /** Undefined: Twilio is not configured (both its account SID and auth token are needed). */
  readonly twilio: TwilioSettings | undefined;
  readonly retell: RetellSettings | undefined;
  readonly lob: LobSettings | undefined;
  /** Per provider account: requests per second, in flight at once, attempts of one request. */
  readonly limits: { readonly sendRatePerSecond: number; readonly concurrency: number; readonly maxAttempts: number };
}

const trimmed = (url: string): string => url.replace(/\/+$/, "");

/** The decoded variables as settings. */
export const providerSettingsOf = (values: Partial<ProviderValues>): ProviderSettings => ({
  twilio:
    values.TWILIO_ACCOUNT_SID === undefined || values.TWILIO_AUTH_TOKEN === undefined
      ? undefined
      : {
          baseUrl: trimmed(values.TWILIO_BASE_URL ?? "https://api.twilio.com"),
          accountSid: values.TWILIO_ACCOUNT_SID,
          authToken: values.TWILIO_AUTH_TOKEN,
          smsFrom: values.TWILIO_SMS_FROM,
          whatsappFrom: values.TWILIO_WHATSAPP_FROM,
        },
  retell:
    values.RETELL_API_KEY === undefined
      ? undefined
      : {
          baseUrl: trimmed(values.RETELL_BASE_URL ?? "https://api.retellai.com"),
          apiKey: values.RETELL_API_KEY,
          fromNumber: values.RETELL_FROM_NUMBER,
        },
  lob:
    values.LOB_API_KEY === undefined
      ? undefined
      : {
          baseUrl: trimmed(values.LOB_BASE_URL ?? "https://api.lob.com"),
          apiKey: values.LOB_API_KEY,
          webhookSecret: values.LOB_WEBHOOK_SECRET,
          fromAddress: values.LOB_FROM_ADDRESS,
        },
  limits: {
    sendRatePerSecond: values.PROVIDER_SEND_RATE ?? 10,
    concurrency: values.PROVIDER_CONCURRENCY ?? 4,
    maxAttempts: values.PROVIDER_MAX_ATTEMPTS ?? 4,
  },
});

/** No provider configured (tests, and a platform that sends only e-mail). */
export const NO_PROVIDERS: ProviderSettings = providerSettingsOf({});
