/**
 * The templates a step uses when its content leaves the subject or the body
 * out (docs/templates.md), per channel and language. They are Liquid, like
 * the content administrators write, and use only the fields of
 * `RenderContext`, each guarded where it may be missing. A subject exists
 * for e-mail (its Subject header) and post (the letter's object line).
 */
import type { TimelineDefinition } from "@dc/domain";
import type { Language } from "./render-context.ts";

export interface DefaultTemplate {
  readonly subject: string | null;
  readonly body: string;
}

/** Channels whose messages carry a subject. */
export const hasSubject = (channel: TimelineDefinition.Channel): boolean =>
  channel === "email" || channel === "postmail";

const en = {
  greeting: "{% if name %}Dear {{ name }},{% else %}Dear Sir or Madam,{% endif %}",
  what:
    "{{ amount }} owed to {{ creditor }}" +
    "{% if invoice_reference %} for invoice {{ invoice_reference }}{% endif %}" +
    "{% if object %} ({{ object }}){% endif %}" +
    "{% if due_date %}, due on {{ due_date }},{% endif %}",
  pay: "{% if payment_link %}You can pay it now at {{ payment_link }}{% else %}Please pay it at your earliest convenience{% endif %}.",
  subject:
    "Payment reminder: {{ amount }} owed to {{ creditor }}{% if invoice_reference %} (invoice {{ invoice_reference }}){% endif %}",
};

const fr = {
  greeting: "{% if name %}Bonjour {{ name }},{% else %}Madame, Monsieur,{% endif %}",
  what:
    "la somme de {{ amount }} due à {{ creditor }}" +
    "{% if invoice_reference %} au titre de la facture {{ invoice_reference }}{% endif %}" +
    "{% if object %} ({{ object }}){% endif %}" +
    "{% if due_date %}, à échéance du {{ due_date }},{% endif %}",
  pay: "{% if payment_link %}Vous pouvez la régler dès maintenant sur {{ payment_link }}{% else %}Merci de la régler dans les meilleurs délais{% endif %}.",
  subject:
    "Rappel de paiement : {{ amount }} dus à {{ creditor }}{% if invoice_reference %} (facture {{ invoice_reference }}){% endif %}",
};

const letter = (text: typeof en, lines: { intro: string; paid: string; regards: string }) =>
  `${text.greeting}\n\n${lines.intro}\n\n${text.pay} ${lines.paid}\n\n${lines.regards}\n{{ company }}`;

const templates: Readonly<Record<Language, Readonly<Record<TimelineDefinition.Channel, DefaultTemplate>>>> = {
  en: {
    email: {
      subject: en.subject,
      body: letter(en, {
        intro: `Our records show that ${en.what} is still outstanding.`,
        paid: "If you have already paid, please disregard this message.",
        regards: "Kind regards,",
      }),
    },
    postmail: {
      subject: en.subject,
      body: letter(en, {
        intro: `We are writing to you on behalf of {{ creditor }}: ${en.what} is still outstanding.`,
        paid: "If you have already paid, please disregard this letter.",
        regards: "Yours faithfully,",
      }),
    },
    sms: {
      subject: null,
      body: `{{ company }}: ${en.what} is outstanding. {% if payment_link %}Pay: {{ payment_link }}{% else %}Please pay it soon.{% endif %}`,
    },
    whatsapp: {
      subject: null,
      body: `${en.greeting}\n\nOur records show that ${en.what} is still outstanding. ${en.pay}\n\n{{ company }}`,
    },
    voicemail: {
      subject: null,
      body: `Hello{% if name %} {{ name }}{% endif %}, this is {{ company }} calling about ${en.what}. ${en.pay} Otherwise, please call us back. Thank you.`,
    },
    ai_call: {
      subject: null,
      body:
        `You are calling{% if name %} {{ name }}{% endif %} on behalf of {{ company }} about ${en.what}. ` +
        "Be courteous, confirm you are speaking to the right person before mentioning the debt, " +
        "and ask when the debtor will pay. Record any promise with its date.",
    },
    manual_call: {
      subject: null,
      body: `Call{% if name %} {{ name }}{% endif %} about ${en.what}. Ask for a payment date and record any promise.`,
    },
  },
  fr: {
    email: {
      subject: fr.subject,
      body: letter(fr, {
        intro: `Sauf erreur de notre part, ${fr.what} reste impayée.`,
        paid: "Si vous avez déjà réglé, merci de ne pas tenir compte de ce message.",
        regards: "Cordialement,",
      }),
    },
    postmail: {
      subject: fr.subject,
      body: letter(fr, {
        intro: `Nous vous écrivons pour le compte de {{ creditor }} : ${fr.what} reste impayée.`,
        paid: "Si vous avez déjà réglé, merci de ne pas tenir compte de ce courrier.",
        regards: "Veuillez agréer nos salutations distinguées,",
      }),
    },
    sms: {
      subject: null,
      body: `{{ company }} : ${fr.what} reste impayée. {% if payment_link %}Payer : {{ payment_link }}{% else %}Merci de la régler rapidement.{% endif %}`,
    },
    whatsapp: {
      subject: null,
      body: `${fr.greeting}\n\nSauf erreur de notre part, ${fr.what} reste impayée. ${fr.pay}\n\n{{ company }}`,
    },
    voicemail: {
      subject: null,
      body: `Bonjour{% if name %} {{ name }}{% endif %}, ici {{ company }}, au sujet de ${fr.what}. ${fr.pay} Sinon, merci de nous rappeler. Merci.`,
    },
    ai_call: {
      subject: null,
      body:
        `Vous appelez{% if name %} {{ name }}{% endif %} pour le compte de {{ company }} au sujet de ${fr.what}. ` +
        "Soyez courtois, vérifiez que vous parlez à la bonne personne avant de mentionner la dette, " +
        "et demandez quand le débiteur réglera. Notez toute promesse avec sa date.",
    },
    manual_call: {
      subject: null,
      body: `Appeler{% if name %} {{ name }}{% endif %} au sujet de ${fr.what}. Demander une date de paiement et noter toute promesse.`,
    },
  },
};

/** The default template of a channel in a language. */
export const defaultTemplate = (channel: TimelineDefinition.Channel, language: Language): DefaultTemplate =>
  templates[language][channel];
