import type { TimelineDefinition } from "@dc/domain";
import { describe, expect, it } from "vitest";
import { htmlOf } from "../../src/channels/email-html.ts";
import { contentProblem, renderStep, TemplateError } from "../../src/channels/render.ts";
import { type DebtFields, languageOf, renderContextFor, renderContextOf } from "../../src/channels/render-context.ts";

const debt: DebtFields = {
  civility: "Ms",
  firstname: "Jane",
  lastname: "Doe",
  debtor_company: null,
  country: "GB",
  postal_code: "SW1A 1AA",
  phone: "+447700900123",
  amount_minor: 150_000,
  balance_minor: 123_456,
  currency: "EUR",
  due_date: "2025-03-15",
  payment_link: "https://pay.example/d/42",
  invoice_reference: "INV-42",
  object: "Annual subscription",
  creditor_name: "Acme Receivables",
  company_name: "Collect & Co",
};

const step = (
  channel: TimelineDefinition.Channel,
  content: TimelineDefinition.Content = {},
): TimelineDefinition.Step => ({ day_offset: 0, channel, configuration: {}, content });

describe("renderStep", () => {
  it("fills every documented field of a written template", () => {
    const context = renderContextOf(debt);
    const rendered = renderStep(
      step("email", {
        subject: "{{ invoice_reference }} for {{ firstname }}",
        body:
          "{{ civility }}|{{ firstname }}|{{ lastname }}|{{ name }}|{{ amount }}|{{ invoice_amount }}|{{ currency }}|" +
          "{{ due_date }}|{{ payment_link }}|{{ creditor }}|{{ invoice_reference }}|{{ object }}|{{ company }}|{{ language }}",
      }),
      context,
    );
    expect(rendered).toEqual({
      subject: "INV-42 for Jane",
      body:
        "Ms|Jane|Doe|Ms Jane Doe|€1,234.56|€1,500.00|EUR|15 March 2025|https://pay.example/d/42|Acme Receivables|" +
        "INV-42|Annual subscription|Collect & Co|en",
    });
  });

  it("keeps the debt's text as it is in the text it renders (no HTML entities in an SMS)", () => {
    const context = renderContextOf({ ...debt, firstname: '<b>Jo</b> & "Al"', object: "Tom's <script>x</script>" });
    const rendered = renderStep(step("sms", { body: "Hi {{ firstname }}, {{ object }}" }), context);
    expect(rendered).toEqual({ subject: null, body: 'Hi <b>Jo</b> & "Al", Tom\'s <script>x</script>' });
  });

  it("escapes everything the debt holds in the e-mail's HTML part", () => {
    const context = renderContextOf({
      ...debt,
      firstname: "<img src=x onerror=alert(1)>",
      payment_link: 'https://pay.example/"x"<y>',
    });
    const rendered = renderStep(
      step("email", { body: "Hi {{ firstname }} & you\n\nPay at {{ payment_link }}" }),
      context,
    );
    const html = htmlOf({ subject: "A <b>subject</b>", body: rendered.body, language: context.language });
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>");
    expect(html).toContain("<title>A &lt;b&gt;subject&lt;/b&gt;</title>");
    expect(html).toContain("<p>Hi &lt;img src=x onerror=alert(1)&gt; &amp; you</p>");
    // A quote ends an address: it never reaches the attribute.
    expect(html).toContain('<p>Pay at <a href="https://pay.example/">https://pay.example/</a>&#34;x&#34;&lt;y&gt;</p>');
  });

  it("renders a missing field as nothing, and lets templates test for it", () => {
    const context = renderContextOf({ ...debt, firstname: null, payment_link: "  ", due_date: null });
    const rendered = renderStep(
      step("whatsapp", {
        body: "[{{ firstname }}]{% if payment_link %}pay{% else %}no link{% endif %}|{{ due_date | default: 'soon' }}|{{ nothing }}",
      }),
      context,
    );
    expect(rendered.body).toBe("[]no link|soon|");
  });

  it("uses the channel's default template when the content leaves a part out or blank", () => {
    const context = renderContextOf(debt);
    const rendered = renderStep(step("email", { subject: "  " }), context);
    expect(rendered.subject).toBe("Payment reminder: €1,234.56 owed to Acme Receivables (invoice INV-42)");
    expect(rendered.body).toBe(
      [
        "Dear Ms Jane Doe,",
        "",
        "Our records show that €1,234.56 owed to Acme Receivables for invoice INV-42 (Annual subscription), due on 15 March 2025, is still outstanding.",
        "",
        "You can pay it now at https://pay.example/d/42. If you have already paid, please disregard this message.",
        "",
        "Kind regards,",
        "Collect & Co",
      ].join("\n"),
    );
    // A written body with the default subject.
    expect(renderStep(step("email", { body: "Hello" }), context)).toEqual({
      subject: "Payment reminder: €1,234.56 owed to Acme Receivables (invoice INV-42)",
      body: "Hello",
    });
  });

  it("writes the default templates in French for a French-speaking debtor, amounts and dates in French", () => {
    const context = renderContextOf({ ...debt, country: "FR", postal_code: "75002", civility: "Mme" });
    expect(context.language).toBe("fr");
    const rendered = renderStep(step("email"), context);
    expect(rendered.subject).toBe("Rappel de paiement : 1\u202f234,56\u00a0€ dus à Acme Receivables (facture INV-42)");
    expect(rendered.body).toBe(
      [
        "Bonjour Mme Jane Doe,",
        "",
        "Sauf erreur de notre part, la somme de 1\u202f234,56\u00a0€ due à Acme Receivables au titre de la facture INV-42 (Annual subscription), à échéance du 15 mars 2025, reste impayée.",
        "",
        "Vous pouvez la régler dès maintenant sur https://pay.example/d/42. Si vous avez déjà réglé, merci de ne pas tenir compte de ce message.",
        "",
        "Cordialement,",
        "Collect & Co",
      ].join("\n"),
    );
  });

  it("has a default in both languages for every channel, a subject only for e-mail and post", () => {
    const bare = {
      ...debt,
      civility: null,
      firstname: null,
      lastname: null,
      payment_link: null,
      due_date: null,
      invoice_reference: null,
      object: null,
    };
    for (const country of ["GB", "FR"]) {
      const context = renderContextOf({ ...bare, country });
      for (const channel of ["email", "sms", "whatsapp", "ai_call", "voicemail", "manual_call", "postmail"] as const) {
        const rendered = renderStep(step(channel), context);
        expect(rendered.subject === null).toBe(channel !== "email" && channel !== "postmail");
        expect(rendered.body).toContain(context.amount);
        expect(rendered.body).not.toMatch(/\{\{|\{%|  /);
      }
    }
    expect(renderStep(step("sms"), renderContextOf(bare)).body).toBe(
      "Collect & Co: €1,234.56 owed to Acme Receivables is outstanding. Please pay it soon.",
    );
    expect(renderStep(step("email"), renderContextOf(bare)).body).toMatch(/^Dear Sir or Madam,\n/);
    expect(renderStep(step("email"), renderContextOf({ ...bare, country: "FR" })).body).toMatch(/^Madame, Monsieur,\n/);
  });

  // Intl's French spacing: a narrow no-break space between thousands, a no-break space before the currency.
  it("lets a step's configuration choose the language", () => {
    const french = { day_offset: 0, channel: "sms" as const, configuration: { language: "fr" }, content: {} };
    expect(renderContextFor(french, debt)).toMatchObject({ language: "fr", due_date: "15 mars 2025" });
    expect(renderContextFor({ ...french, configuration: { language: "de" } }, debt).language).toBe("en");
    expect(renderContextFor({ ...french, configuration: {} }, { ...debt, country: "FR" }).language).toBe("fr");
  });

  it("formats amounts with the currency's own decimals", () => {
    expect(renderContextOf({ ...debt, currency: "JPY", balance_minor: 12_345 }).amount).toBe("JP¥12,345");
    expect(renderContextOf({ ...debt, currency: "USD", country: "US", balance_minor: 99 }).amount).toBe("$0.99");
    expect(
      renderContextOf({ ...debt, currency: "CHF", country: "CH", postal_code: "1201", balance_minor: 123_456 }).amount,
    ).toBe(
      // Swiss French, whose separators vary with the ICU version.
      new Intl.NumberFormat("fr-CH", { style: "currency", currency: "CHF" }).format(1234.56),
    );
  });

  it("puts a subject on one line", () => {
    const rendered = renderStep(
      step("email", { subject: "Line one\nBcc: x@example.com\r\n {{ firstname }}" }),
      renderContextOf(debt),
    );
    expect(rendered.subject).toBe("Line one Bcc: x@example.com Jane");
  });

  it("raises TemplateError for a template that does not parse, and contentProblem names it", () => {
    const context = renderContextOf(debt);
    expect(() => renderStep(step("sms", { body: "Hi {% if firstname %}" }), context)).toThrow(TemplateError);
    expect(() => renderStep(step("sms", { body: "{{ firstname | no_such_filter }}" }), context)).toThrow(TemplateError);
    expect(contentProblem({ subject: "fine", body: "{{ firstname" })).toMatchObject({
      _tag: "TemplateError",
      part: "body",
    });
    expect(contentProblem({ subject: "Hi {{ firstname }}" })).toBeUndefined();
  });

  it("reads no file: include and render find nothing", () => {
    const context = renderContextOf(debt);
    expect(() => renderStep(step("sms", { body: "{% include '/etc/passwd' %}" }), context)).toThrow(TemplateError);
    expect(() => renderStep(step("sms", { body: "{% render 'package.json' %}" }), context)).toThrow(TemplateError);
  });

  it("stops a template that would render without end", () => {
    const context = renderContextOf(debt);
    expect(() =>
      renderStep(step("sms", { body: "{% for i in (1..100000000) %}{{ firstname }}{% endfor %}" }), context),
    ).toThrow(TemplateError);
  });
});

describe("languageOf", () => {
  it.each([
    [{ country: "FR", postal_code: null, phone: null }, "fr"],
    [{ country: "france", postal_code: null, phone: null }, "fr"],
    [{ country: "RE", postal_code: "97400", phone: null }, "fr"],
    [{ country: "MC", postal_code: null, phone: null }, "fr"],
    [{ country: "LU", postal_code: null, phone: null }, "fr"],
    [{ country: "BE", postal_code: "1000", phone: null }, "fr"],
    [{ country: "BE", postal_code: "4000", phone: null }, "fr"],
    [{ country: "BE", postal_code: "2000", phone: null }, "en"],
    [{ country: "CH", postal_code: "1201", phone: null }, "fr"],
    [{ country: "CH", postal_code: "8001", phone: null }, "en"],
    [{ country: "CA", postal_code: "H2X 1Y4", phone: null }, "fr"],
    [{ country: "CA", postal_code: "M5V 2T6", phone: null }, "en"],
    [{ country: "SN", postal_code: null, phone: null }, "fr"],
    [{ country: "DE", postal_code: null, phone: "+33612345678" }, "en"],
    [{ country: null, postal_code: null, phone: "+33 6 12 34 56 78" }, "fr"],
    [{ country: null, postal_code: null, phone: "+447700900123" }, "en"],
    [{ country: null, postal_code: null, phone: null }, "en"],
  ] as const)("%o -> %s", (debtor, language) => {
    expect(languageOf(debtor)).toBe(language);
  });
});
