//! Purpose text rendered as safe HTML.
//!
//! Everything in a claim is untrusted. Raw HTML is escaped (shown as text), links keep their
//! text but lose their target unless it is `http:`, `https:` or `mailto:` (so `javascript:`,
//! `data:` and `vbscript:` never reach a page), images become their alt text, and links that
//! stay open get `rel="noopener noreferrer nofollow"`.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

/// Is this link target safe to put in an `href`?
pub fn safe_url(url: &str) -> bool {
    // Browsers ignore whitespace and control characters inside a scheme (`java\tscript:`).
    let squeezed: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    squeezed.starts_with("https://")
        || squeezed.starts_with("http://")
        || squeezed.starts_with("mailto:")
}

fn escape_attr(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Renders markdown to HTML that is safe to insert into a page.
pub fn render(markdown: &str) -> String {
    let options = Options::ENABLE_STRIKETHROUGH;
    // Which links were kept, so their end tags match.
    let mut link_stack: Vec<bool> = Vec::new();
    let mut in_image = 0usize;
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link { dest_url, .. }) => {
            let keep = safe_url(&dest_url);
            link_stack.push(keep);
            keep.then(|| {
                Event::InlineHtml(CowStr::from(format!(
                    "<a href=\"{}\" rel=\"noopener noreferrer nofollow\">",
                    escape_attr(dest_url.trim())
                )))
            })
        }
        Event::End(TagEnd::Link) => link_stack
            .pop()
            .unwrap_or(false)
            .then(|| Event::InlineHtml(CowStr::from("</a>"))),
        Event::Start(Tag::Image { .. }) => {
            in_image += 1;
            None
        }
        Event::End(TagEnd::Image) => {
            in_image = in_image.saturating_sub(1);
            None
        }
        other => Some(other),
    });
    let _ = in_image;
    let mut out = String::new();
    html::push_html(&mut out, events);
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            render("fix **totals**"),
            "<p>fix <strong>totals</strong></p>"
        );
    }

    #[test]
    fn html_is_escaped() {
        let out = render("<script>alert(1)</script> <img src=x onerror=alert(1)>");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn unsafe_links_lose_their_target() {
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JAVASCRIPT:alert(1))",
            "[x](java\tscript:alert(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
            "![x](javascript:alert(1))",
        ] {
            let out = render(bad);
            assert!(!out.to_lowercase().contains("href"), "{bad} → {out}");
            assert!(!out.contains("<img"), "{bad} → {out}");
        }
        let ok = render("[docs](https://example.com/a?b=\"c\")");
        assert_eq!(
            ok,
            "<p><a href=\"https://example.com/a?b=&quot;c&quot;\" rel=\"noopener noreferrer nofollow\">docs</a></p>"
        );
    }
}
