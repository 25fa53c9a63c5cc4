// The only place where HTML from the data reaches the page: a claim's `purpose_html`, which core
// already rendered from markdown with raw HTML escaped and unsafe links dropped. We do not rely on
// that alone (defence in depth): the HTML is parsed into an inert <template>, then every element
// and attribute outside a tiny allow-list is removed and every href that is not http(s) or mailto
// is dropped, before the fragment is attached. Under the page's Trusted Types CSP this is also
// the only policy allowed to create HTML, so a stray innerHTML elsewhere would throw.

/** Elements pulldown-cmark emits for a purpose, with the attributes each may keep. */
const ALLOWED: ReadonlyMap<string, readonly string[]> = new Map([
  ['p', []],
  ['br', []],
  ['strong', []],
  ['em', []],
  ['del', []],
  ['code', []],
  ['pre', []],
  ['a', ['href']],
  ['ul', []],
  ['ol', ['start']],
  ['li', []],
  ['blockquote', []],
  ['hr', []],
  ['h1', []],
  ['h2', []],
  ['h3', []],
  ['h4', []],
  ['h5', []],
  ['h6', []],
]);

/** Elements whose content is never shown as text either: drop them whole. */
const DROP_WITH_CONTENT = new Set([
  'script',
  'style',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'noscript',
  'textarea',
  'title',
  'select',
  'frameset',
  'frame',
  'noembed',
  'xmp',
]);

/** http, https and mailto, as core allows; whitespace and controls inside a scheme are ignored
 * by browsers (`java\tscript:`), so they are ignored here too before looking at the scheme. */
export function isSafeHref(href: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (browsers drop them from schemes)
  const squeezed = href.replace(/[\s\u0000-\u001f\u007f]+/g, '').toLowerCase();
  return /^(https?:\/\/|mailto:)/.test(squeezed);
}

interface TrustedHTMLPolicy {
  createHTML(input: string): unknown;
}
interface TrustedTypesFactory {
  createPolicy(name: string, rules: { createHTML(input: string): string }): TrustedHTMLPolicy;
}

let policy: TrustedHTMLPolicy | null | undefined;

/** `rail-purpose`, created once; null when Trusted Types exist but refuse the name (a host's CSP
 * that does not list it), in which case purposes are shown as plain text. */
function purposePolicy(): TrustedHTMLPolicy | null {
  if (policy !== undefined) return policy;
  const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
  if (!factory) {
    policy = { createHTML: (input: string) => input };
    return policy;
  }
  try {
    // The string is sanitized after parsing (below), when it is still inert.
    policy = factory.createPolicy('rail-purpose', { createHTML: (input) => input });
  } catch {
    policy = null;
  }
  return policy;
}

function clean(node: Node): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE) continue;
    if (child.nodeType !== Node.ELEMENT_NODE) {
      child.remove(); // comments, processing instructions
      continue;
    }
    const el = child as Element;
    const tag = el.localName;
    if (DROP_WITH_CONTENT.has(tag) || el.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
      el.remove();
      continue;
    }
    clean(el);
    const allowed = ALLOWED.get(tag);
    if (!allowed) {
      el.replaceWith(...Array.from(el.childNodes)); // keep the text, lose the element
      continue;
    }
    for (const attr of Array.from(el.attributes)) {
      if (!allowed.includes(attr.name)) el.removeAttribute(attr.name);
    }
    if (tag === 'a') {
      const href = el.getAttribute('href');
      if (href === null || !isSafeHref(href)) el.removeAttribute('href');
      else {
        el.setAttribute('rel', 'noopener noreferrer nofollow');
        el.setAttribute('referrerpolicy', 'no-referrer');
        el.setAttribute('target', '_blank');
      }
    }
    if (tag === 'ol' && !/^\d{1,9}$/.test(el.getAttribute('start') ?? '1')) el.removeAttribute('start');
  }
}

/** A sanitized fragment of core's purpose HTML; `fallback` (the raw purpose) as text when the
 * host forbids creating HTML at all. */
export function purposeFragment(html: string, fallback: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const p = purposePolicy();
  if (!p) {
    fragment.append(document.createTextNode(fallback));
    return fragment;
  }
  const template = document.createElement('template');
  // A <template>'s content is inert: nothing in it loads or runs while it is cleaned.
  (template as { innerHTML: unknown }).innerHTML = p.createHTML(html);
  clean(template.content);
  fragment.append(template.content);
  return fragment;
}
