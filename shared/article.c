/* article.c - see article.h. */
#include "article.h"

#include "html.h"
#include "util.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_DEPTH 400           /* deeper subtrees are ignored (gumbo allows any depth) */
#define MIN_PARA_CHARS 25       /* a paragraph shorter than this scores nothing */
#define MIN_ARTICLE_BODY 200    /* a named article body with less text is not trusted */
#define JSONLD_MAX (512 * 1024) /* bytes of one JSON-LD script we are willing to parse */
#define JSONLD_DEPTH 4
#define SMALL_JUNK_CHARS 200 /* a byline, date or caption block is shorter */
#define LEAD_LEVELS 6        /* <h1> and article at most this far below their ancestor */
#define LEAD_MAX 3000        /* more text than this between them is not a lead */
#define POST_LEVELS 6        /* a chosen element this far inside a post is that post */
#define NAMED_PART 100       /* a named part of an article body holds this much text */
#define NAMED_LEVELS 6       /* parts of an article body at most this far below it */
#define SCORE_LEVELS 5       /* ancestors a paragraph's score reaches */

typedef struct node_stat {
    const GumboNode *node;
    size_t parent; /* index, SIZE_MAX for the root */
    size_t end;    /* one past the last descendant's index (preorder) */
    unsigned text, link, commas;
    double score;
    double mass;              /* the scores of the paragraphs inside it (see spread_of) */
    int weight;               /* class/id/tag verdict */
    unsigned cand : 1;        /* score initialised */
    unsigned boiler : 1;      /* navigation, comments, related ... (decided in mark_boiler) */
    unsigned says_boiler : 1; /* its tag, role, class or id says so */
    unsigned in_boiler : 1;   /* some ancestor is boilerplate */
    unsigned has_block : 1;   /* a block element among the children */
    unsigned has_h1 : 1;      /* holds the first <h1> */
    unsigned body_class : 1;  /* class/id/itemprop/role names the article body */
    unsigned small_junk : 1;  /* class/id names a byline, date, caption, tag list ... */
    unsigned reply : 1;       /* a comment under the article (see cut_comments) */
    unsigned itemprop : 1;    /* itemprop=articleBody */
    unsigned comments : 1;    /* class/id says comments, or inside such an element */
    unsigned own_comment : 1; /* its own class/id says comments */
    unsigned article : 1;     /* <article>, or itemtype schema.org Article/NewsArticle/BlogPosting */
    unsigned signature : 1;   /* class/id says signature: a poster's, under each post of a thread */
    unsigned forum_post : 1;  /* itemtype schema.org DiscussionForumPosting or Question */
    unsigned reply_item : 1;  /* itemtype schema.org Comment or Answer */
    unsigned menu : 1;        /* <nav>, role navigation or menu */
    unsigned reviews : 1;     /* class/id says reviews or carousel (boilerplate on a product's page) */
    unsigned holder : 1;      /* holds a placeholder of React's streamed chunks (see emit_chunks) */
    unsigned id_said : 1;     /* its id, not its class, says boilerplate or junk (see slug_id) */
} node_stat;

typedef struct art {
    node_stat *v;
    size_t n, cap;
    size_t h1; /* the first <h1> (else the first itemprop=headline), or SIZE_MAX */
    int h1_seen;
    const char *jsonld_body; /* borrowed from jsonld */
    int product;             /* a product's page: schema.org Product (JSON-LD, microdata) or og:type */
    unsigned scope;          /* text outside links of the container being emitted */
    double scope_ld;         /* its link density */
    int entries;             /* that container is a run of entries (a listing's cards) */
    int feed;                /* that container is a thread in a feed named comments */
    json_t *jsonld;
    const struct matcher *match; /* the class/id word lists */
} art;

/* ---- what counts ---------------------------------------------------------------------------- */

/* Gumbo has no tag number for <dialog>: its name as written ("<dialog ...>"). */
static int is_dialog(const GumboNode *n)
{
    GumboStringPiece name = n->v.element.original_tag;
    gumbo_tag_from_original_text(&name);
    return name.length == 6 && strncasecmp(name.data, "dialog", 6) == 0;
}

/* A word to look for and its length, counted by the compiler. */
typedef struct word {
    const char *s;
    size_t len;
} word;
/* clang-format off */
#define WORD(lit) {lit, sizeof lit - 1}
/* clang-format on */

/* Whether the class word P (LEN bytes) hides its block on a desktop's screen ("elementor-hidden-desktop",
 * "hide-on-desktop"): a copy of the text laid out for phones. */
static int desktop_hidden(const char *p, size_t len)
{
    static const word ends[] = {WORD("hidden-desktop"), WORD("hide-desktop"), WORD("hide-on-desktop"),
                                WORD("hidden-on-desktop")};
    for (size_t i = 0; i < RC_ARRAY_LEN(ends); i++)
        if (len >= ends[i].len && strncasecmp(p + len - ends[i].len, ends[i].s, ends[i].len) == 0)
            return 1;
    return 0;
}

/* Whether the class word P (LEN bytes) names a display that shows its block ("d-md-block",
 * "lg:flex", "table-cell"): one of these words, whole (ending the class word or before a "-"),
 * at its start, after a variant's colon or in a display utility (Bootstrap's "d-...", Bulma's
 * "is-block-desktop", "display-block-sm"), found in one pass over it (this runs on every class
 * word of every element); a word inside another names no display ("elementor-hidden-tablet",
 * "wp-block-group", "live-sample---basic_table"). */
static int shown_class(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        const char *w;
        switch (p[i]) {
        case 'b':
            w = "block";
            break;
        case 'f':
            w = "flex";
            break;
        case 'g':
            w = "grid";
            break;
        case 'i':
            w = "inline";
            break;
        case 't':
            w = "table";
            break;
        default:
            continue;
        }
        size_t wl = strlen(w);
        if (len - i >= wl && memcmp(p + i, w, wl) == 0 && (i + wl == len || p[i + wl] == '-') &&
            (i == 0 || p[i - 1] == ':' || !strncmp(p, "d-", 2) || !strncmp(p, "is-", 3) || !strncmp(p, "display-", 8)))
            return 1;
    }
    return 0;
}

/* Whether CLASS names a block that style sheets hide (a framework's "hidden", "d-none"; Bootstrap's
 * "invisible", and its "modal" and "dropdown-menu" until a script opens them; Magnific Popup's
 * "mfp-hide", a lightbox's content until it opens; Invision's "ipsHide"; Webflow's
 * "w-condition-invisible", a block whose condition is not met) and no class shows
 * it again at some width ("md:block", "d-lg-flex"); and text for screen readers alone
 * (Bootstrap's "sr-only" and "visually-hidden", WordPress's "screen-reader-text": a shop card's
 * "Brand name", "Price" before each value, "Skip to content"), which a reader never sees. */
static int hidden_class(const char *cls)
{
    static const word hide[] = {WORD("hidden"),
                                WORD("is-hidden"),
                                WORD("hide"),
                                WORD("d-none"),
                                WORD("modal"),
                                WORD("dropdown-menu"),
                                WORD("invisible"),
                                WORD("mfp-hide"),
                                WORD("ipsHide"),
                                WORD("w-condition-invisible"),
                                WORD("sr-only"),
                                WORD("visually-hidden"),
                                WORD("screen-reader-text")};
    int hid = 0;
    for (const char *p = cls; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        size_t len = strcspn(p, " \t\n");
        if (!len)
            break;
        for (size_t i = 0; i < RC_ARRAY_LEN(hide) && !hid; i++)
            hid = hide[i].len == len && strncasecmp(p, hide[i].s, len) == 0;
        hid |= desktop_hidden(p, len);
        if (shown_class(p, len))
            return 0;
        p += len;
    }
    return hid;
}

int rc_article_overlay(const GumboNode *n)
{
    /* A <dialog> without "open", or any element marked aria-modal, is shown over the page on
     * demand (cookie notices, sign-up forms, a shop's privacy policy, an image zoom). */
    if (n->v.element.tag == GUMBO_TAG_UNKNOWN && is_dialog(n) && !rc_html_attr(n, "open"))
        return 1;
    const char *modal = rc_html_attr(n, "aria-modal");
    return modal && !strcasecmp(modal, "true");
}

/* Whether element N is hidden until a script shows it. */
static int hidden(const GumboNode *n)
{
    if (rc_article_overlay(n))
        return 1;
    /* A tab panel is shown when its tab is picked (a quickstart's code for each language, a
     * product's specifications): the page's text, which the sets' labels keep, hidden or not. */
    const char *role = rc_html_attr(n, "role");
    if (role && !strcasecmp(role, "tabpanel"))
        return 0;
    /* React's streaming server rendering (Next.js) sends the page's content in <div hidden
     * id="S:0"> and a script moves it into place: shown, not hidden. */
    const char *id = rc_html_attr(n, "id");
    if (rc_html_attr(n, "hidden") && !(id && id[0] == 'S' && id[1] == ':'))
        return 1;
    const char *style = rc_html_attr(n, "style");
    if (style && (strstr(style, "display:none") || strstr(style, "display: none")))
        return 1;
    const char *cls = rc_html_attr(n, "class");
    if (cls && hidden_class(cls))
        return 1;
    return 0;
}

/* Elements whose content is never text of the page. */
static int dropped(const GumboNode *n, int depth)
{
    if (n->type != GUMBO_NODE_ELEMENT || depth > MAX_DEPTH)
        return 1;
    if (n->v.element.tag_namespace != GUMBO_NAMESPACE_HTML)
        return 1;
    switch (n->v.element.tag) {
    case GUMBO_TAG_BUTTON:
        /* A button that is a heading's text (an accordion's question, "<h3><button>How do I
         * ...?</button></h3>") is read with the heading; other buttons are controls. */
        if (n->parent && n->parent->type == GUMBO_NODE_ELEMENT && n->parent->v.element.tag >= GUMBO_TAG_H1 &&
            n->parent->v.element.tag <= GUMBO_TAG_H6)
            return hidden(n);
        return 1;
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_MAP:
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_LABEL:
    case GUMBO_TAG_FIGCAPTION:
        return 1;
    default:
        break;
    }
    return hidden(n);
}

static int is_block(GumboTag t)
{
    switch (t) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
        return 1;
    default:
        return 0;
    }
}

/* Substrings of class/id that mark boilerplate (readability's "unlikely candidates" and the
 * teaser/sharing blocks seen on the benchmark sets), and those that veto it. */
static const char *const unlikely[] = {"-ad-",
                                       "ad-break",
                                       "agegate",
                                       "banner",
                                       "breadcrumb",
                                       "combx",
                                       "comment",
                                       "community",
                                       "cookie",
                                       "disqus",
                                       "extra",
                                       "footer",
                                       "gdpr",
                                       "header",
                                       "legends",
                                       "menu",
                                       "related",
                                       "remark",
                                       "replies",
                                       "rss",
                                       "shoutbox",
                                       "sidebar",
                                       "skyscraper",
                                       "social",
                                       "sponsor",
                                       "supplemental",
                                       "pagination",
                                       "pager",
                                       "popup",
                                       "share",
                                       "sharing",
                                       "newsletter",
                                       "subscribe",
                                       "recommend",
                                       "popular",
                                       "trending",
                                       "most-read",
                                       "mostread",
                                       "read-more",
                                       "readmore",
                                       "signup",
                                       "promo",
                                       "navbar",
                                       "navigation",
                                       "outbrain",
                                       "taboola",
                                       "email",  /* a sign-up form for offers by email */
                                       "legal",  /* a product's or a school's legal notes, licence terms */
                                       "author", /* an author's box: "author-card", "author-details" */
                                       "tooltip",
                                       "disclosure",
                                       "affiliate",
                                       "site-description",
                                       "site-branding",
                                       "donat",
                                       "copyright",
                                       "entry-footer",
                                       "post-footer",
                                       "article-footer",
                                       "buybox",
                                       "paywall",
                                       "teasers",
                                       "more-from",
                                       "further-reading",
                                       "see-also",
                                       "also-read",
                                       "read-also",
                                       "you-may",
                                       "youmay",
                                       "more-stories",
                                       "nextread",
                                       "next-read",
                                       "shariff",
                                       "footnotes",
                                       "disclaimer",
                                       "feedback",
                                       "upsell",
                                       "overlay",
                                       "saboxplugin",   /* Simple Author Box: an author's box */
                                       "post-form",     /* a Q&A site's "Your answer" form */
                                       "bottom-notice", /* "Not the answer you're looking for?" */
                                       NULL};
static const char *const maybe[] = {"and", "article", "body", "column", "content", "main", "shadow", NULL};
static const char *const negative[] = {"hidden",  "banner",   "combx",    "comment",  "com-",    "contact",
                                       "foot",    "footnote", "masthead", "media",    "meta",    "promo",
                                       "related", "scroll",   "share",    "shoutbox", "sidebar", "skyscraper",
                                       "sponsor", "shopping", "tags",     "tool",     "widget",  NULL};
static const char *const positive[] = {"article", "body", "content", "entry", "hentry", "h-entry", "main",
                                       "page",    "post", "text",    "blog",  "story",  NULL};

/* Class/id substrings that name the article body itself (trafilatura's first choices). */
static const char *const body_words[] = {
    "entry-content",  "entry_content",   "post-content",    "post_content",      "postcontent",      "post-body",
    "post_body",      "postbody",        "post-text",       "post_text",         "article-body",     "article_body",
    "articlebody",    "article-content", "article_content", "articlecontent",    "article__content", "article__body",
    "article-text",   "article_text",    "articletext",     "story-body",        "storybody",        "story-content",
    "storycontent",   "story-text",      "blog-content",    "blog-post-content", "content-body",     "body-text",
    "bodytext",       "main-text",       "news-text",       "news_text",         "newstext",         "news-content",
    "single-content", "text-content",    "article-detail",  "news-detail",       "news_detail",      "page-content",
    "rich-text",      "richtext",        "td-post-content", "field--name-body",  "field-name-body",  NULL};
/* Inside the article: small blocks that are not its text (a poster's details beside each post of a
 * thread: XenForo's "message-userDetails", phpBB's "usertitle"). */
static const char *const junk_words[] = {
    "byline",       "author",    "dateline",   "date",       "time",     "meta",      "caption",
    "credit",       "tags",      "share",      "social",     "print",    "rating",    "breadcrumb",
    "toolbar",      "subline",   "profile",    "signature",  "userinfo", "user-info", "userdetails",
    "user-details", "usertitle", "user-title", "userextras", NULL};

static const char *const comment_words[] = {"comment", "disqus", NULL};
static const char *const signature_words[] = {"signature", NULL};
/* On a product's page: its buyers' reviews, and carousels (other products: "more from this shop"). */
static const char *const review_words[] = {"reviews", "review-list", "product-review", "carousel", NULL};

/* What a class/id says, one bit per word list, found in one scan of the string: judge() runs on
 * every element, and a strstr per word was most of the article method's time. */
enum {
    W_UNLIKELY = 1,
    W_MAYBE = 2,
    W_NEGATIVE = 4,
    W_POSITIVE = 8,
    W_BODY = 16,
    W_JUNK = 32,
    W_COMMENTS = 64,
    W_SIGNATURE = 128,
    W_REVIEWS = 256,
};
static const struct {
    const char *const *words;
    unsigned bit;
} word_lists[] = {
    {unlikely, W_UNLIKELY},   {maybe, W_MAYBE},     {negative, W_NEGATIVE},      {positive, W_POSITIVE},
    {body_words, W_BODY},     {junk_words, W_JUNK}, {comment_words, W_COMMENTS}, {signature_words, W_SIGNATURE},
    {review_words, W_REVIEWS}};
#define MATCH_WORDS 256
#define MATCH_BUCKETS 1024 /* a power of two */

/* The words of all lists, chained by their first two bytes. */
typedef struct matcher {
    const char *word[MATCH_WORDS];
    unsigned char len[MATCH_WORDS];
    unsigned short bit[MATCH_WORDS];
    short next[MATCH_WORDS], head[MATCH_BUCKETS];
} matcher;

/* The bucket of the words that start with the bytes A B: a word's first two letters pick its
 * chain, so a scan looks at a word or two at each place, not every word with its first letter. */
static unsigned matcher_bucket(unsigned char a, unsigned char b)
{
    return ((unsigned)a * 31u + b) & (MATCH_BUCKETS - 1);
}

static void matcher_init(matcher *m)
{
    memset(m->head, -1, sizeof m->head);
    short n = 0;
    for (size_t l = 0; l < RC_ARRAY_LEN(word_lists); l++)
        for (const char *const *w = word_lists[l].words; *w && n < MATCH_WORDS; w++, n++) {
            unsigned c = matcher_bucket((unsigned char)(*w)[0], (unsigned char)(*w)[1]);
            m->word[n] = *w;
            m->len[n] = (unsigned char)strlen(*w);
            m->bit[n] = (unsigned short)word_lists[l].bit;
            m->next[n] = m->head[c];
            m->head[c] = n;
        }
}

/* The W_ bits of the lists with a word in S. */
static unsigned matcher_scan(const matcher *m, const char *s)
{
    unsigned bits = 0;
    for (const char *p = s; *p; p++)
        for (short k = m->head[matcher_bucket((unsigned char)p[0], (unsigned char)p[1])]; k >= 0; k = m->next[k])
            if (!(bits & m->bit[k]) && p[0] == m->word[k][0] && p[1] == m->word[k][1] &&
                strncmp(p, m->word[k], m->len[k]) == 0)
                bits |= m->bit[k];
    return bits;
}

static int any_in(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (strstr(s, *words))
            return 1;
    return 0;
}

/* Lower-cased "class id" of N into BUF (cut at CAP). A class with a colon is a utility
 * framework's variant (Tailwind's "print:break-inside-avoid", "md:fd-column", "[h2]:pt-0"): a
 * style for some medium or state, which names nothing and is left out. */
static void class_id(const GumboNode *n, char *buf, size_t cap)
{
    const char *c = rc_html_attr(n, "class"), *i = rc_html_attr(n, "id");
    size_t k = 0;
    for (const char *s = c ? c : ""; *s && k + 2 < cap;) {
        size_t len = strcspn(s, " \t\n");
        if (!len) {
            buf[k++] = *s++;
            continue;
        }
        /* ... but one that hides the block in print ("print:hidden": an ad's box, a share bar)
         * says what the block is, as a wiki's "noprint" does. */
        char tok[64];
        size_t tl = len < sizeof tok ? len : sizeof tok - 1;
        memcpy(tok, s, tl);
        tok[tl] = 0;
        int print_hidden = !strncasecmp(tok, "print:", 6) && (strstr(tok, "hidden") || strstr(tok, "none"));
        if (memchr(s, ':', len) && !print_hidden) {
            s += len;
            continue;
        }
        for (size_t j = 0; j < len && k + 2 < cap; j++, s++)
            buf[k++] = (char)((*s >= 'A' && *s <= 'Z') ? *s + 32 : *s);
    }
    buf[k++] = ' ';
    for (const char *s = i ? i : ""; *s && k + 1 < cap; s++)
        buf[k++] = (char)((*s >= 'A' && *s <= 'Z') ? *s + 32 : *s);
    buf[k] = 0;
}

/* The W_ bits of CI (a "class id" string) with a component's own header blanked: in a BEM name
 * "__header" is the header of a card, a listing's entry or a section ("new-listing__header"
 * holds a job's title), not the page's. CI is changed. */
static unsigned part_words(const matcher *mt, char *ci)
{
    static const char *const parts[] = {"__header", NULL};
    for (const char *const *w = parts; *w; w++)
        for (char *p = strstr(ci, *w); p; p = strstr(p + 2, *w))
            memset(p + 2, 'x', strlen(*w) - 2);
    return matcher_scan(mt, ci);
}

/* The W_MAYBE bit of CI with "articles" blanked: a list of other articles ("related-articles",
 * "more-articles") is not the page's article, and does not veto its boilerplate word. */
static unsigned veto_words(const matcher *mt, const char *ci)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", ci);
    for (char *p = strstr(buf, "articles"); p; p = strstr(p + 8, "articles"))
        memset(p, 'x', 8);
    return matcher_scan(mt, buf) & W_MAYBE;
}

/* Whether the class TOK is a flexbox layout's direction ("flex-column", Bootstrap's
 * "flex-md-column", Stacks' "fd-column"): a column of a flex layout, not a newspaper's. */
static int flex_layout(const char *tok)
{
    return strstr(tok, "column") && (strstr(tok, "flex") || strstr(tok, "fd-"));
}

/* W_MAYBE when a class or id of CI ("class id") holds a word for the article but none for
 * boilerplate: "disclaimer-content" is a disclaimer's content, "content sidebar-left" names the
 * article. A comment's content ("comment-content") still vetoes: a forum names its posts so, and
 * comments are judged apart (cut_comments). */
static unsigned veto_alone(const matcher *mt, const char *ci)
{
    char tok[512];
    for (const char *p = ci; *p;) {
        p += strspn(p, " \t\n");
        size_t len = strcspn(p, " \t\n");
        if (!len)
            break;
        if (len < sizeof tok) {
            memcpy(tok, p, len);
            tok[len] = 0;
            unsigned w = flex_layout(tok) ? 0 : matcher_scan(mt, tok);
            if ((w & W_MAYBE) && (!(w & W_UNLIKELY) || (w & W_COMMENTS)))
                return W_MAYBE;
        }
        p += len;
    }
    return 0;
}

/* CI as class_id wrote it ("class words id") without its id. */
static void drop_id(char *ci)
{
    char *sp = strrchr(ci, ' ');
    if (sp)
        sp[1] = 0;
}

static void judge(const matcher *mt, node_stat *s, int no_id)
{
    const GumboNode *n = s->node;
    GumboTag t = n->v.element.tag;
    char ci[512];
    class_id(n, ci, sizeof ci);
    /* A heading's id is its anchor, a slug of its words ("cheapest-time-to-visit", "ive-updated-
     * the-state"): only its class says what it is (a date, a byline, a related box's title). */
    if (no_id || (t >= GUMBO_TAG_H1 && t <= GUMBO_TAG_H6))
        drop_id(ci);
    const char *role = rc_html_attr(n, "role");
    const char *ip = rc_html_attr(n, "itemprop");
    int hasci = ci[0] != ' ' || ci[1];
    unsigned says = hasci ? matcher_scan(mt, ci) : 0;
    /* Whether the id, not the class, says boilerplate or junk (see slug_id). */
    if (!no_id && (says & (W_UNLIKELY | W_JUNK | W_COMMENTS)) && rc_html_attr(n, "id")) {
        char cls[512];
        memcpy(cls, ci, sizeof cls);
        drop_id(cls);
        s->id_said = ((says & ~matcher_scan(mt, cls)) & (W_UNLIKELY | W_JUNK | W_COMMENTS)) != 0;
    }
    if ((says & W_UNLIKELY) && strstr(ci, "__"))
        says = (says & ~(unsigned)W_UNLIKELY) | (part_words(mt, ci) & W_UNLIKELY);
    if ((says & W_UNLIKELY) && (says & W_MAYBE) && strstr(ci, "articles"))
        says = (says & ~(unsigned)W_MAYBE) | veto_words(mt, ci);
    if ((says & W_UNLIKELY) && (says & W_MAYBE))
        says = (says & ~(unsigned)W_MAYBE) | veto_alone(mt, ci);
    s->menu = t == GUMBO_TAG_NAV || (role && (!strcasecmp(role, "navigation") || !strcasecmp(role, "menu")));
    s->says_boiler = s->menu || (role && (!strcasecmp(role, "contentinfo") || !strcasecmp(role, "banner"))) ||
                     (hasci && t != GUMBO_TAG_BODY && t != GUMBO_TAG_A && t != GUMBO_TAG_HTML && (says & W_UNLIKELY) &&
                      !(says & W_MAYBE));
    /* What a site keeps out of search results' snippets (data-nosnippet: an author's blurb, a
     * date line, a notice) is not the text a reader came for. */
    if (rc_html_attr(n, "data-nosnippet"))
        s->says_boiler = 1;
    s->body_class = (says & W_BODY) || (ip && strstr(ip, "articleBody")) || (role && !strcasecmp(role, "article"));
    s->small_junk = (says & W_JUNK) != 0;
    s->itemprop = ip && strstr(ip, "articleBody");
    const char *it = rc_html_attr(n, "itemtype");
    s->article = t == GUMBO_TAG_ARTICLE || (it && (strstr(it, "Article") || strstr(it, "BlogPosting")));
    s->forum_post = it && (strstr(it, "DiscussionForumPosting") || strstr(it, "/Question"));
    s->reply_item = it && (strstr(it, "/Comment") || strstr(it, "/Answer"));
    s->comments = s->own_comment = (says & W_COMMENTS) != 0;
    s->signature = (says & W_SIGNATURE) != 0;
    s->reviews = (says & W_REVIEWS) != 0;
    int w = 0;
    switch (t) {
    case GUMBO_TAG_DIV:
        w = 5;
        break;
    case GUMBO_TAG_ARTICLE:
        w = 10;
        break;
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_SECTION:
        w = 3;
        break;
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_BLOCKQUOTE:
        w = 3;
        break;
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_FORM:
        w = -3;
        break;
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_TH:
        w = -5;
        break;
    default:
        break;
    }
    if (says & W_NEGATIVE)
        w -= 25;
    if (says & W_POSITIVE)
        w += 25;
    if (ip && strstr(ip, "articleBody"))
        w += 25;
    if (role && !strcasecmp(role, "main"))
        w += 10;
    s->weight = w;
}

/* ---- pass 1: text, links and commas of every element ------------------------------------- */

/* Per byte: 1 = a visible character starts here (not ASCII whitespace, not a UTF-8 continuation
 * byte), 2 = ',', 4 = the lead byte of a fullwidth or ideographic comma. A table because this
 * loop reads every byte of the page's text (it was a tenth of a full crawl's CPU); with SSE2 the
 * same classes are counted 16 bytes at a time (count_text_sse2), the table does the tail. */
static const unsigned char text_class[256] = {
    [1 ... 8] = 1,       [11] = 1,   [14 ... 31] = 1,     [33 ... 43] = 1, [','] = 3,           [45 ... 127] = 1,
    [0xC0 ... 0xE2] = 1, [0xE3] = 5, [0xE4 ... 0xEE] = 1, [0xEF] = 5,      [0xF0 ... 0xFF] = 1,
};

/* A comma spelt in three bytes at P: U+FF0C fullwidth, U+3001 ideographic. */
static int wide_comma(const unsigned char *p)
{
    return (p[0] == 0xEF && p[1] == 0xBC && p[2] == 0x8C) || (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x81);
}

#if defined(__SSE2__)
/* count_text's table, 16 bytes at a time: the bytes that are no character (ASCII whitespace but
 * VT, UTF-8 continuation bytes) and the ','s are counted by SAD, a wide comma's lead byte is
 * looked at alone. Returns where it stopped (fewer than 16 bytes before END). */
static const unsigned char *count_text_sse2(const unsigned char *p, const unsigned char *end, unsigned *chars,
                                            unsigned *commas)
{
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    const __m128i tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), ff = _mm_set1_epi8('\f');
    const __m128i cr = _mm_set1_epi8('\r'), sp = _mm_set1_epi8(' '), comma = _mm_set1_epi8(',');
    const __m128i cont = _mm_set1_epi8(-64); /* signed: 0x80-0xBF are -128..-65 */
    const __m128i e3 = _mm_set1_epi8((char)0xE3), ef = _mm_set1_epi8((char)0xEF);
    __m128i none = zero, ncommas = zero;
    const unsigned char *start = p;
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, ff), _mm_cmpeq_epi8(v, cr)));
        __m128i no = _mm_or_si128(_mm_or_si128(ws, _mm_cmpeq_epi8(v, sp)), _mm_cmplt_epi8(v, cont));
        none = _mm_add_epi64(none, _mm_sad_epu8(_mm_and_si128(no, one), zero));
        ncommas = _mm_add_epi64(ncommas, _mm_sad_epu8(_mm_and_si128(_mm_cmpeq_epi8(v, comma), one), zero));
        unsigned lead = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, e3), _mm_cmpeq_epi8(v, ef)));
        for (; lead; lead &= lead - 1)
            *commas += (unsigned)wide_comma(p + __builtin_ctz(lead));
    }
    unsigned skipped = (unsigned)_mm_cvtsi128_si32(none) + (unsigned)_mm_cvtsi128_si32(_mm_unpackhi_epi64(none, none));
    *chars += (unsigned)(p - start) - skipped;
    *commas += (unsigned)_mm_cvtsi128_si32(ncommas) + (unsigned)_mm_cvtsi128_si32(_mm_unpackhi_epi64(ncommas, ncommas));
    return p;
}
#endif

static void count_text(node_stat *s, const char *text, int in_link)
{
    unsigned chars = 0, commas = 0;
    const unsigned char *p = (const unsigned char *)text;
#if defined(__SSE2__)
    size_t n = strlen(text);
    if (n >= 16)
        p = count_text_sse2(p, p + n, &chars, &commas);
#endif
    for (; *p; p++) {
        unsigned c = text_class[*p];
        chars += c & 1;
        if (c < 2)
            continue;
        if (c & 2)
            commas++;
        else if (wide_comma(p))
            commas++;
    }
    s->commas += commas;
    s->text += chars;
    if (in_link)
        s->link += chars;
}

static size_t push(art *a, const GumboNode *n, size_t parent)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 512;
        a->v = rc_xrealloc(a->v, a->cap * sizeof(*a->v));
    }
    memset(&a->v[a->n], 0, sizeof(a->v[a->n]));
    a->v[a->n].node = n;
    a->v[a->n].parent = parent;
    return a->n++;
}

static void find_jsonld_body(art *a, const GumboNode *n);

/* Class/id words of a site's own banner: its name and tagline, not the page's. */
static const char *const banner_words[] = {"site-title", "site-branding", "site-header", "site-description", NULL};

/* An <h1> in a breadcrumb trail or in the site's banner (the site's name, over its tagline) is
 * not the headline. */
static int in_nav(const GumboNode *n)
{
    char ci[256];
    for (const GumboNode *p = n; p && p->type == GUMBO_NODE_ELEMENT; p = p->parent) {
        if (p->v.element.tag == GUMBO_TAG_NAV)
            return 1;
        class_id(p, ci, sizeof ci);
        if (any_in(ci, banner_words))
            return 1;
    }
    return 0;
}

/* Whether META is Open Graph's type of a product's page (og:type "product", "product.group"). */
static int og_product(const GumboNode *meta)
{
    const char *prop = rc_html_attr(meta, "property"), *content = rc_html_attr(meta, "content");
    return prop && content && !strcasecmp(prop, "og:type") && !strncasecmp(content, "product", 7);
}

/* Whether K is the placeholder of one of React's streamed chunks (<template id="B:n">). */
static int chunk_placeholder(const GumboNode *k)
{
    const char *id = rc_html_attr(k, "id");
    return id && id[0] == 'B' && id[1] == ':';
}

/* Whether the class or id of N says a product's name ("product-title", WooCommerce's
 * "product_title", Amazon's "productTitle"). */
static int names_product(const GumboNode *n)
{
    char ci[512];
    class_id(n, ci, sizeof ci);
    return strstr(ci, "producttitle") || strstr(ci, "product-title") || strstr(ci, "product_title") ||
           strstr(ci, "product__title");
}

/* Whether an <h1> of the page (or an element it holds: Amazon's <h1 id=title><span
 * id=productTitle>) is a product's name: a shop's page of one product, which says so nowhere
 * else (no schema.org Product, no og:type). */
static int product_title(const GumboNode *h1)
{
    if (names_product(h1))
        return 1;
    const GumboVector *kids = &h1->v.element.children;
    for (unsigned i = 0; i < kids->length; i++) {
        const GumboNode *k = kids->data[i];
        if (k->type == GUMBO_NODE_ELEMENT && names_product(k))
            return 1;
    }
    return 0;
}

/* Whether the link A shows its own address as its text (a reference's URL, "https://..."): the
 * address is what the page says, not a way elsewhere. */
static int bare_url(const GumboNode *a)
{
    const GumboVector *kids = &a->v.element.children;
    if (kids->length != 1 || ((const GumboNode *)kids->data[0])->type != GUMBO_NODE_TEXT)
        return 0;
    const GumboNode *p = a->parent;
    for (int up = 0; up < 3 && p && p->type == GUMBO_NODE_ELEMENT && p->v.element.tag != GUMBO_TAG_LI; up++)
        p = p->parent;
    if (!p || p->type != GUMBO_NODE_ELEMENT || p->v.element.tag != GUMBO_TAG_LI)
        return 0;
    const char *t = ((const GumboNode *)kids->data[0])->v.text.text;
    while (*t == ' ' || *t == '\n' || *t == '\t')
        t++;
    return !strncmp(t, "http://", 7) || !strncmp(t, "https://", 8) || !strncmp(t, "www.", 4);
}

static size_t collect(art *a, const GumboNode *n, size_t parent, int depth, int in_link)
{
    size_t id = push(a, n, parent);
    judge(a->match, &a->v[id], 0);
    GumboTag t = n->v.element.tag;
    in_link |= t == GUMBO_TAG_A && !bare_url(n);
    if (t == GUMBO_TAG_H1 && !a->h1_seen && !in_nav(n)) {
        a->h1 = id;
        a->h1_seen = 1;
    }
    if (t == GUMBO_TAG_H1 && !a->product)
        a->product = product_title(n);
    const char *ip = rc_html_attr(n, "itemprop");
    const char *it = rc_html_attr(n, "itemtype");
    if (it && strstr(it, "schema.org/Product"))
        a->product = 1;
    if (a->h1 == SIZE_MAX && ip && strstr(ip, "headline")) /* until an <h1> is seen */
        a->h1 = id;
    const GumboVector *kids = &n->v.element.children;
    for (unsigned i = 0; i < kids->length; i++) {
        const GumboNode *k = kids->data[i];
        if (k->type == GUMBO_NODE_TEXT || k->type == GUMBO_NODE_CDATA) {
            count_text(&a->v[id], k->v.text.text, in_link);
            continue;
        }
        if (k->type == GUMBO_NODE_ELEMENT && k->v.element.tag == GUMBO_TAG_SCRIPT)
            find_jsonld_body(a, k);
        if (k->type == GUMBO_NODE_ELEMENT && k->v.element.tag == GUMBO_TAG_HEAD)
            for (unsigned j = 0; j < k->v.element.children.length; j++) {
                const GumboNode *h = k->v.element.children.data[j];
                if (h->type == GUMBO_NODE_ELEMENT && h->v.element.tag == GUMBO_TAG_SCRIPT)
                    find_jsonld_body(a, h);
                if (h->type == GUMBO_NODE_ELEMENT && h->v.element.tag == GUMBO_TAG_META && og_product(h))
                    a->product = 1;
            }
        if (k->type == GUMBO_NODE_TEMPLATE && chunk_placeholder(k))
            a->v[id].holder = 1;
        if (dropped(k, depth + 1))
            continue;
        size_t c = collect(a, k, id, depth + 1, in_link);
        node_stat *s = &a->v[id], *cs = &a->v[c];
        s->holder |= cs->holder;
        s->text += cs->text;
        s->link += cs->link;
        s->commas += cs->commas;
        if (is_block(k->v.element.tag))
            s->has_block = 1;
    }
    a->v[id].end = a->n;
    return id;
}

/* A table of DATA_ROWS or more rows with text is data (a list of laureates, a ranking of books):
 * a class naming its own parts ("sticky-header", "js-dataTooltip") does not make it the page's
 * header or a tooltip. */
#define DATA_ROWS 4
static int data_table(const art *a, size_t t)
{
    if (a->v[t].node->v.element.tag != GUMBO_TAG_TABLE)
        return 0;
    unsigned rows = 0;
    for (size_t k = t + 1; k < a->v[t].end && rows < DATA_ROWS; k++) {
        size_t p = a->v[k].parent;
        if (a->v[k].node->v.element.tag == GUMBO_TAG_TR && a->v[k].text && (p == t || a->v[p].parent == t))
            rows++;
    }
    return rows >= DATA_ROWS;
}

/* A class such as "with-sidebar-right" or "header-style-3" on a wrapper of the whole page
 * says nothing: an element is boilerplate when it says so and holds neither the <h1> nor half
 * of the page's text outside links. */
static int is_heading(GumboTag t);
static void text_into(const GumboNode *n, char *buf, size_t cap, size_t *len);
#define SLUG_WORDS 3
#define SLUG_LOOK 8 /* the heading is among this many first elements of the block */
/* Whether I's id spells the words of the heading it opens with ("use-trimmed-interleaved-
 * replies-in-email-discussions" over "Use trimmed interleaved replies in email discussions"): a
 * section's anchor, whose words ("replies", "time", "header") name nothing. */
static int slug_id(const art *a, size_t i)
{
    size_t h = i + 1;
    while (h < a->v[i].end && h <= i + SLUG_LOOK && !is_heading(a->v[h].node->v.element.tag))
        h++;
    if (h >= a->v[i].end || h > i + SLUG_LOOK)
        return 0;
    char text[256];
    size_t len = 0;
    text_into(a->v[h].node, text, sizeof text, &len);
    const char *id = rc_html_attr(a->v[i].node, "id"), *p = text;
    int words = 0;
    while (*id) {
        while (*id && !isalnum((unsigned char)*id))
            id++;
        size_t wl = 0;
        while (isalnum((unsigned char)id[wl]))
            wl++;
        if (!wl)
            break;
        /* the next word of the heading, in order */
        for (;;) {
            while (*p && !isalnum((unsigned char)*p))
                p++;
            if (!*p)
                return 0;
            size_t hl = 0;
            while (isalnum((unsigned char)p[hl]))
                hl++;
            int same = hl == wl && !strncasecmp(p, id, wl);
            p += hl;
            if (same)
                break;
        }
        id += wl;
        words++;
    }
    return words >= SLUG_WORDS;
}

static void mark_boiler(art *a)
{
    if (!a->n)
        return;
    for (size_t p = a->h1; p != SIZE_MAX; p = a->v[p].parent)
        a->v[p].has_h1 = 1;
    unsigned page = a->v[0].text - a->v[0].link;
    for (size_t i = 0; i < a->n; i++) {
        node_stat *s = &a->v[i];
        if (s->id_said && slug_id(a, i))
            judge(a->match, s, 1);
        /* A class that says boilerplate on most of the page is a wrapper's; a shop's menu is
         * navigation even when its hidden panels hold most of the page's text. On a product's
         * page (schema.org Product), a block named reviews is its buyers' reviews, not its
         * description, even when they are most of the page; and a <footer> that says it is one
         * is the page's footer (legal notes, footnotes of offers) however long. */
        int says = s->says_boiler || (a->product && s->reviews);
        if (says && !s->menu && data_table(a, i))
            says = 0;
        s->boiler = says && !s->has_h1 &&
                    (s->menu || (a->product && s->reviews) || s->node->v.element.tag == GUMBO_TAG_FOOTER ||
                     (s->text - s->link) * 2 <= page);
        if (s->parent != SIZE_MAX) {
            s->in_boiler = a->v[s->parent].boiler || a->v[s->parent].in_boiler;
            s->comments |= a->v[s->parent].comments;
        }
    }
}

/* ---- JSON-LD articleBody ------------------------------------------------------------------- */

const char *rc_article_jsonld_string(json_t *v, const char *key, int depth)
{
    if (depth > JSONLD_DEPTH)
        return NULL;
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach (v, i, e) {
            const char *s = rc_article_jsonld_string(e, key, depth + 1);
            if (s)
                return s;
        }
        return NULL;
    }
    if (!json_is_object(v))
        return NULL;
    const char *s = json_string_value(json_object_get(v, key));
    if (s && *s)
        return s;
    return rc_article_jsonld_string(json_object_get(v, "@graph"), key, depth + 1);
}

static void find_jsonld_body(art *a, const GumboNode *n)
{
    const char *type = rc_html_attr(n, "type");
    if (type && !strcasecmp(type, "application/ld+json") && n->v.element.children.length == 1) {
        const GumboNode *t0 = n->v.element.children.data[0];
        if (t0->type == GUMBO_NODE_TEXT && strstr(t0->v.text.text, "\"Product\""))
            a->product = 1;
    }
    if (a->jsonld_body || !type || strcasecmp(type, "application/ld+json") != 0 || n->v.element.children.length != 1)
        return;
    const GumboNode *t = n->v.element.children.data[0];
    if (t->type != GUMBO_NODE_TEXT && t->type != GUMBO_NODE_WHITESPACE)
        return;
    size_t len = strlen(t->v.text.text);
    if (len > JSONLD_MAX)
        return;
    json_t *root = json_loadb(t->v.text.text, len, JSON_DECODE_ANY, NULL);
    const char *s = root ? rc_article_jsonld_string(root, "articleBody", 0) : NULL;
    if (s) {
        a->jsonld = root;
        a->jsonld_body = s;
    } else {
        json_decref(root);
    }
}

/* ---- pass 2: scoring ------------------------------------------------------------------------ */

static double link_density(const node_stat *s)
{
    return s->text ? (double)s->link / s->text : 0;
}

static int scores_as_paragraph(const node_stat *s)
{
    switch (s->node->v.element.tag) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_BLOCKQUOTE:
        return 1;
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_FONT:
    case GUMBO_TAG_SPAN:
    case GUMBO_TAG_CENTER:
        return !s->has_block;
    default:
        return 0;
    }
}

static void score(art *a)
{
    for (size_t i = 0; i < a->n; i++) {
        node_stat *s = &a->v[i];
        if (s->boiler || s->in_boiler || !scores_as_paragraph(s) || s->text < MIN_PARA_CHARS)
            continue;
        /* Nested paragraph-like elements (a span in a div without blocks) count once. */
        if (s->parent != SIZE_MAX && scores_as_paragraph(&a->v[s->parent]) &&
            a->v[s->parent].node->v.element.tag != GUMBO_TAG_TD)
            continue;
        /* Commas in code (argument lists) say nothing of prose. */
        unsigned commas = s->node->v.element.tag == GUMBO_TAG_PRE ? 0 : s->commas;
        double sc = 1 + commas + (s->text / 100 < 3 ? s->text / 100 : 3);
        for (size_t q = i; q != SIZE_MAX; q = a->v[q].parent)
            a->v[q].mass += sc;
        size_t p = s->parent;
        for (int level = 0; level < SCORE_LEVELS && p != SIZE_MAX; level++, p = a->v[p].parent) {
            node_stat *ps = &a->v[p];
            if (ps->node->v.element.tag == GUMBO_TAG_HTML)
                break;
            if (!ps->cand) {
                ps->cand = 1;
                ps->score = ps->weight;
            }
            ps->score += level == 0 ? sc : level == 1 ? sc / 2 : sc / (level * 3);
        }
    }
}

static double final_score(const node_stat *s)
{
    return s->score * (1 - link_density(s));
}

static unsigned nonlink(const node_stat *s)
{
    return s->text - s->link;
}

/* The element the page names as its article body (class/id, itemprop, role), else its first
 * <article>, with the most text outside links; SIZE_MAX when none has MIN_ARTICLE_BODY. */
static size_t named_body(const art *a)
{
    size_t best = SIZE_MAX;
    for (int pass = 0; pass < 2 && best == SIZE_MAX; pass++)
        for (size_t i = 0; i < a->n; i++) {
            const node_stat *s = &a->v[i];
            int named = pass == 0 ? s->body_class : s->article;
            /* "post-content" is also the class of each comment in many themes */
            if (!named || s->boiler || s->in_boiler || s->comments || nonlink(s) < MIN_ARTICLE_BODY)
                continue;
            if (best == SIZE_MAX || nonlink(s) > nonlink(&a->v[best]))
                best = i;
            if (pass == 1)
                break;
        }
    return best;
}

static size_t best_candidate(art *a)
{
    size_t best = SIZE_MAX;
    double bs = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->v[i].cand || a->v[i].boiler || a->v[i].in_boiler)
            continue;
        double f = final_score(&a->v[i]);
        if (best == SIZE_MAX || f > bs) {
            best = i;
            bs = f;
        }
    }
    return best;
}

/* Whether ANC is I or holds it. */
static int holds(const art *a, size_t anc, size_t i)
{
    return anc <= i && i < a->v[anc].end;
}

/* Readability's look for a better top candidate: an ancestor of BEST (below <body>) that holds
 * at least ALT_MIN of the other candidates scoring within ALT_SHARE of it is the article, split
 * into parts (content blocks, sections of a CMS). Readability asks for 75 % of the score; half
 * finds more of the articles split into sections on trafilatura's evaluation set. */
#define ALT_TOP 5
#define ALT_MIN 3
#define ALT_SHARE 0.5
static size_t better_candidate(const art *a, size_t best)
{
    size_t alt[ALT_TOP];
    int nalt = 0;
    double bs = final_score(&a->v[best]);
    for (size_t i = 0; i < a->n; i++) {
        const node_stat *s = &a->v[i];
        if (i == best || !s->cand || s->boiler || s->in_boiler || holds(a, i, best) || holds(a, best, i) ||
            final_score(s) < bs * ALT_SHARE)
            continue;
        if (nalt < ALT_TOP)
            alt[nalt++] = i;
    }
    if (nalt >= ALT_MIN)
        for (size_t p = a->v[best].parent; p != SIZE_MAX && a->v[p].node->v.element.tag != GUMBO_TAG_BODY;
             p = a->v[p].parent) {
            int in = 0;
            for (int k = 0; k < nalt; k++)
                in += holds(a, p, alt[k]);
            if (in >= ALT_MIN)
                return p;
        }
    return best;
}

/* Whether a child of P other than X holds X's text again (within 1 %): a copy of it for another
 * screen size, not another part. */
static int copied(const art *a, size_t p, size_t x)
{
    unsigned own = nonlink(&a->v[x]);
    for (size_t k = p + 1; k < a->v[p].end; k = a->v[k].end) {
        unsigned t = nonlink(&a->v[k]);
        if (k != x && (t > own ? t - own : own - t) * 100 <= own)
            return 1;
    }
    return 0;
}

/* An article laid out as a column of sections (a landing page's rows, a CMS's blocks, a health
 * page's headed parts, each a few paragraphs deep in wrappers): the best block is one section,
 * and no other scores near it. Its nearest ancestor (below <body>, at most SPREAD_LEVELS up)
 * whose paragraphs score SPREAD times its own is the article, unless that ancestor is mostly
 * links (a page's whole frame) or the rest is copies of the best's branch. */
#define SPREAD 3
#define SPREAD_LEVELS 14
#define SPREAD_LD 0.3
static size_t spread_of(const art *a, size_t best)
{
    size_t x = best, p = a->v[best].parent;
    for (int level = 0; level < SPREAD_LEVELS && p != SIZE_MAX; level++, x = p, p = a->v[p].parent) {
        const node_stat *s = &a->v[p];
        if (s->node->v.element.tag == GUMBO_TAG_BODY || s->boiler || s->in_boiler)
            break;
        if (s->mass >= SPREAD * a->v[best].mass)
            return link_density(s) < SPREAD_LD && !copied(a, p, x) ? p : best;
    }
    return best;
}

/* ---- pass 3: the text ---------------------------------------------------------------------- */

typedef struct out {
    rc_buf b;
    int para, line, space, in_pre;
} out;

/* Bytes put_text() must look at one by one: NUL, ASCII whitespace and the lead bytes of NBSP and
 * the soft hyphen (C2), the zero-width space (E2) and the BOM (EF). Runs of the others are copied
 * whole: this loop reads every byte of the article. */
static const unsigned char text_special[256] = {
    [0] = 1, [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, [0xC2] = 1, [0xE2] = 1, [0xEF] = 1,
};

/* The pending separator before visible text, if anything was written. */
static void put_sep(out *o)
{
    if (o->b.len) {
        if (o->para)
            rc_buf_append(&o->b, "\n\n", 2);
        else if (o->line)
            rc_buf_putc(&o->b, '\n');
        else if (o->space)
            rc_buf_putc(&o->b, ' ');
    }
    o->para = o->line = o->space = 0;
}

static void put_text(out *o, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        const unsigned char *q = p;
        while (!text_special[*q])
            q++;
        if (q > p) {
            put_sep(o);
            rc_buf_append(&o->b, (const char *)p, (size_t)(q - p));
            p = q;
            continue;
        }
        int ws = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f';
        int nbsp = p[0] == 0xC2 && p[1] == 0xA0;
        /* Soft hyphens, zero-width spaces and stray BOMs are invisible: words stay whole. */
        if (p[0] == 0xC2 && p[1] == 0xAD) {
            p += 2;
            continue;
        }
        if ((p[0] == 0xE2 && p[1] == 0x80 && p[2] == 0x8B) || (p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)) {
            p += 3;
            continue;
        }
        if (ws || nbsp) {
            if (*p == '\n' && o->in_pre)
                o->line = 1;
            else
                o->space = 1;
            p += nbsp ? 2 : 1;
            continue;
        }
        put_sep(o);
        rc_buf_putc(&o->b, (char)*p++);
    }
}

/* A container with this share of its text in links is a listing (papers, podcasts, products):
 * there the entries are links, not links around an article. */
#define SCOPE_LD 0.5

static int is_heading(GumboTag t);

/* Whether the link at L wraps a heading and sits in an entry of a list, at most ITEM_LEVELS
 * up: a card's title ("<li>...<a><h4>Name</h4></a><p>Maker</p>"), not a bare "next" or a
 * block of links. Alone in a block of its own the same link is a teaser. */
#define ITEM_LEVELS 4
static int item_headline(const art *a, size_t l)
{
    if (a->v[l].node->v.element.tag != GUMBO_TAG_A || l + 1 >= a->v[l].end || a->v[l + 1].parent != l ||
        !is_heading(a->v[l + 1].node->v.element.tag))
        return 0;
    for (int d = 0; d < ITEM_LEVELS && l != SIZE_MAX; d++, l = a->v[l].parent)
        if (a->v[l].node->v.element.tag == GUMBO_TAG_LI)
            return 1;
    return 0;
}

/* Whether the heading at H sits in a card, an ancestor at most ITEM_LEVELS up with CARD_MIN or
 * more siblings of its tag and class (a grid of teasers, a list of books) that together hold a
 * 1/CARD_SHARE of the container, the card at most half of them (a layout's row that holds the
 * article is not a card). */
#define CARD_MIN 3
#define CARD_SHARE 3 /* the cards hold a third of the container: a list, not teasers in an article */
static void signature(const GumboNode *n, char *buf, size_t cap);
static int card_title(const art *a, size_t h)
{
    char sig[256], sig2[256];
    size_t x = a->v[h].parent;
    for (int d = 0; d < ITEM_LEVELS && x != SIZE_MAX && a->v[x].parent != SIZE_MAX; d++, x = a->v[x].parent) {
        signature(a->v[x].node, sig, sizeof sig);
        if (!sig[0])
            continue;
        size_t p = a->v[x].parent;
        int same = 0;
        unsigned group = 0;
        for (size_t k = p + 1; k < a->v[p].end; k = a->v[k].end) {
            if (a->v[k].node->v.element.tag != a->v[x].node->v.element.tag)
                continue;
            signature(a->v[k].node, sig2, sizeof sig2);
            if (!strcmp(sig, sig2)) {
                same++;
                group += a->v[k].text;
            }
            if (same >= CARD_MIN && group * CARD_SHARE >= a->scope && nonlink(&a->v[x]) * 2 <= group)
                return 1;
        }
        if (same >= CARD_MIN)
            return 0;
    }
    return 0;
}

/* Whether the heading at H is a control: its link goes nowhere ("javascript:", "#") or opens
 * a part of the page (aria-controls: an accordion's question, a tab). */
static int control_heading(const art *a, size_t h)
{
    for (size_t k = h + 1; k < a->v[h].end; k++) {
        const GumboNode *n = a->v[k].node;
        if (n->v.element.tag != GUMBO_TAG_A)
            continue;
        const char *href = rc_html_attr(n, "href");
        if (!(href && (!strncasecmp(href, "javascript:", 11) || !strcmp(href, "#"))) &&
            !rc_html_attr(n, "aria-controls"))
            return 0;
    }
    return 1;
}

/* The last visible byte of N's text, 0 when it has none. */
static char last_char(const GumboNode *n)
{
    const GumboVector *kids = &n->v.element.children;
    for (unsigned i = kids->length; i-- > 0;) {
        const GumboNode *k = kids->data[i];
        if (k->type == GUMBO_NODE_ELEMENT) {
            char c = last_char(k);
            if (c)
                return c;
            continue;
        }
        if (k->type != GUMBO_NODE_TEXT && k->type != GUMBO_NODE_CDATA)
            continue;
        const char *t = k->v.text.text;
        size_t len = strlen(t);
        while (len && (t[len - 1] == ' ' || t[len - 1] == '\t' || t[len - 1] == '\n' || t[len - 1] == '\r'))
            len--;
        if (len)
            return t[len - 1];
    }
    return 0;
}

/* Whether the list at L is one the paragraph before it introduces ("Here are some of the
 * courses:"): the article's own list of links, not navigation. */
static int introduced_list(const art *a, size_t l)
{
    size_t p = a->v[l].parent, prev = SIZE_MAX;
    if (p == SIZE_MAX)
        return 0;
    for (size_t k = p + 1; k < l; k = a->v[k].end)
        if (a->v[k].text)
            prev = k;
    /* At the end of a post the same lead-in opens teasers ("You might also like:"). */
    int more = 0;
    for (size_t k = a->v[l].end; k < a->v[p].end && !more; k = a->v[k].end)
        more = nonlink(&a->v[k]) >= MIN_PARA_CHARS;
    return more && prev != SIZE_MAX && a->v[prev].node->v.element.tag == GUMBO_TAG_P &&
           nonlink(&a->v[prev]) >= MIN_PARA_CHARS && last_char(a->v[prev].node) == ':';
}

/* Whether the block at L is a list of references: most of its entries a link with a line of
 * their own text (authors, journal, year), where a menu's or a teaser list's entries are the
 * link alone. */
#define CITED_CHARS 30
static int cited_list(const art *a, size_t l)
{
    unsigned items = 0, cited = 0;
    for (size_t k = l + 1; k < a->v[l].end; k++) {
        if (a->v[k].node->v.element.tag != GUMBO_TAG_LI)
            continue;
        items++;
        cited += a->v[k].link && nonlink(&a->v[k]) >= CITED_CHARS;
        k = a->v[k].end - 1;
    }
    return items >= 3 && cited * 3 >= items * 2;
}

/* Whether the element at I is left out of the article's text. */
/* Whether the small block I named like a byline ("meta") wraps blocks of text that are named
 * like nothing of the sort (an arXiv listing's <div class=meta> around each entry's title and
 * subjects): the name is the wrapper's, not the text's. One such block is a caption's or a
 * credit's own paragraph, and a caption's wrapper holds the caption and its credit. */
#define WRAPPED_TEXT 60 /* one of those blocks holds this much text outside links */
static int junk_wrapper(const art *a, size_t i)
{
    static const char *const caption_words[] = {"caption", "credit", NULL};
    char ci[256];
    class_id(a->v[i].node, ci, sizeof ci);
    if (any_in(ci, caption_words))
        return 0;
    int blocks = 0, long_one = 0;
    for (size_t k = i + 1; k < a->v[i].end; k = a->v[k].end) {
        const node_stat *c = &a->v[k];
        if (c->parent == i && is_block(c->node->v.element.tag) && !c->small_junk && !c->boiler && nonlink(c)) {
            blocks++;
            long_one |= nonlink(c) >= WRAPPED_TEXT;
        }
    }
    return blocks >= 2 && long_one;
}

#define PROSE_CHARS 50
#define TEASER_BOX 400 /* a heading's parent with less text is a box of its own (a teaser's) */
/* See cut(): a heading that is all link, standing among the article's blocks. */
static int article_heading(const art *a, size_t h)
{
    size_t box = a->v[h].parent;
    /* A list's entry is no teaser's box: its heading over its text is the entry's title (an
     * events list: each event's name, linking to its site, over its place and description). */
    if (box == SIZE_MAX || (a->v[box].text < TEASER_BOX && a->v[box].node->v.element.tag != GUMBO_TAG_LI))
        return 0;
    const char *href = NULL;
    for (size_t k = h + 1; k < a->v[h].end && !href; k++)
        if (a->v[k].node->v.element.tag == GUMBO_TAG_A)
            href = rc_html_attr(a->v[k].node, "href");
    if (!href)
        return 0;
    size_t next = a->v[h].end;
    if (next >= a->v[box].end || !a->v[next].text || a->v[next].link * 2 > a->v[next].text)
        return 0;
    /* The teaser's other link (its picture's, its "more") is beside the heading: only the
     * siblings before and after it are looked at, not a long listing's every entry. */
    size_t prev = h - 1 > box ? h - 1 : SIZE_MAX;
    while (prev != SIZE_MAX && a->v[prev].parent != box)
        prev = a->v[prev].parent;
    const size_t side[2] = {prev, next};
    for (int j = 0; j < 2; j++) {
        if (side[j] == SIZE_MAX)
            continue;
        for (size_t k = side[j]; k < a->v[side[j]].end; k++) {
            if (a->v[k].node->v.element.tag != GUMBO_TAG_A)
                continue;
            const char *o = rc_html_attr(a->v[k].node, "href");
            if (o && !strcmp(o, href))
                return 0;
        }
    }
    return 1;
}

static int cut(const art *a, size_t i)
{
    const node_stat *s = &a->v[i];
    /* A "banner" or "share" class on most of the article does not make it boilerplate; in a
     * thread held in a feed named comments, a post named comment is the thread's. */
    if (s->boiler && (s->text - s->link) * 2 <= a->scope && !(a->feed && s->own_comment))
        return 1;
    /* A product's buyers' reviews are not its description however long they run. */
    if (s->boiler && a->product && s->reviews)
        return 1;
    GumboTag t = s->node->v.element.tag;
    /* Code or preformatted text is the article's whatever its class says of small blocks (a
     * print tool's: Stack Exchange's "prettyprint-override" on every code block) and however
     * much of it links (line numbers that link to their line). */
    int code = t == GUMBO_TAG_PRE;
    if (s->small_junk && s->text < SMALL_JUNK_CHARS && !code && !junk_wrapper(a, i))
        return 1;
    if (s->reply)
        return 1;
    /* A poster's signature is cut however long (banners, quotes, link lists), unless it is
     * most of what was chosen. */
    if (s->signature && nonlink(s) * 2 <= a->scope)
        return 1;
    if (code)
        return 0;
    if (!is_block(t) || t == GUMBO_TAG_TD || t == GUMBO_TAG_TH)
        return 0;
    /* The list was judged as a whole (cut when mostly links): an entry of a list kept in the
     * article stays when it is mostly a link ("see <a>the longer guide</a>"). */
    if ((t == GUMBO_TAG_LI || t == GUMBO_TAG_DT || t == GUMBO_TAG_DD) && s->parent != SIZE_MAX)
        return 0;
    /* A block of links that holds most of the article's own text is the article (a post that
     * is a list of links, each with a line of comment). */
    if (nonlink(s) * 2 > a->scope)
        return 0;
    if (a->scope_ld >= SCOPE_LD)
        return 0;
    /* In a run of entries (a section page's rows of teasers) an entry is a headline that links
     * to the story and a line or two: a row of such entries is the listing, not links. */
    if (a->entries)
        return 0;
    /* (Each looks at the block's neighbours or entries: only for a block that is mostly links.) */
    if (s->link * 2 > s->text &&
        (((t == GUMBO_TAG_UL || t == GUMBO_TAG_OL) && introduced_list(a, i)) || cited_list(a, i)))
        return 0;
    /* An accordion's question ("<h3><a href=javascript:void(0) aria-controls=a1>") opens its
     * answer: a heading of the page, not a link away. */
    if (is_heading(t) && control_heading(a, i))
        return 0;
    /* A headline in a card of a grid of cards ("<h3><a>Story</a></h3>" in one of many sibling
     * cards of one class) is the entry's title, not a block of links. */
    if (is_heading(t) && s->link * 2 > s->text && card_title(a, i))
        return 0;
    /* A card's title in a list ("<a><h4>Name</h4></a>") is a headline, not a block of links. */
    if (is_heading(t) && s->parent != SIZE_MAX && item_headline(a, s->parent))
        return 0;
    /* A paragraph or a list with a sentence of its own between its links ("This resort features
     * in my lists of <a>the best hotels</a>, <a>...</a>") is prose that cites, not a block of links. */
    if ((t == GUMBO_TAG_P || t == GUMBO_TAG_UL || t == GUMBO_TAG_OL) && nonlink(s) >= PROSE_CHARS)
        return 0;
    /* A heading that is all link among the article's own blocks, heading the text after it, is
     * the article's (a list of places, each heading linking to its site; a heading's permalink);
     * a teaser's title in a box of its own, or whose link goes where another link beside it goes
     * (the teaser's picture, its "more"), or one that heads nothing (the next story's) is not. */
    if (is_heading(t) && article_heading(a, i))
        return 0;
    return s->text && s->link * 2 > s->text;
}

/* Whether the node next to KIDS[i], on either side, is text with something visible in it. */
static int text_beside(const GumboVector *kids, unsigned i)
{
    for (int d = -1; d <= 1; d += 2) {
        if ((d < 0 && i == 0) || i + (unsigned)d >= kids->length)
            continue;
        const GumboNode *n = kids->data[i + (unsigned)d];
        if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_CDATA)
            return 1;
    }
    return 0;
}

/* Headings of a shop's recommendations: other products, not the one the page is about. */
static const char *const RECOMMEND_HEADS[] = {
    "People who viewed this item also viewed", "People who bought this item also bought", "Customers also bought",
    "Customers also viewed", "Customers who bought this item also bought", "Customers who viewed this item also viewed",
    "Frequently bought together", "Complete the look", "Explore related items", "Related items", "More from this brand",
    "Similar items", "Similar products", "Related products", "Recently viewed", "Recently viewed items",
    "Recently viewed products", "You may also like", "You might also like",
    /* an author's box under the article, as a heading */
    "About the author", "About the authors", "About the writer", "Meet the author", "Meet your guide", NULL};

/* The text of N's subtree into BUF (at most CAP - 1 bytes, spaces collapsed). */
static void text_into(const GumboNode *n, char *buf, size_t cap, size_t *len)
{
    const GumboVector *kids = &n->v.element.children;
    for (unsigned i = 0; i < kids->length && *len + 1 < cap; i++) {
        const GumboNode *k = kids->data[i];
        if (k->type == GUMBO_NODE_ELEMENT) {
            text_into(k, buf, cap, len);
            continue;
        }
        if (k->type != GUMBO_NODE_TEXT && k->type != GUMBO_NODE_WHITESPACE)
            continue;
        for (const char *p = k->v.text.text; *p && *len + 1 < cap; p++) {
            int ws = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
            if (!ws)
                buf[(*len)++] = *p;
            else if (*len && buf[*len - 1] != ' ')
                buf[(*len)++] = ' ';
        }
    }
    buf[*len] = 0;
}

/* Whether the element at K is a heading of recommendations. */
static int recommend_head(const art *a, size_t k)
{
    const GumboNode *n = a->v[k].node;
    const char *role = rc_html_attr(n, "role");
    if (!is_heading(n->v.element.tag) && !(role && !strcasecmp(role, "heading")))
        return 0;
    if (a->v[k].text > 64)
        return 0;
    char buf[80];
    size_t len = 0;
    text_into(n, buf, sizeof buf, &len);
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == ':'))
        buf[--len] = 0;
    const char *p = buf[0] == ' ' ? buf + 1 : buf;
    for (const char *const *h = RECOMMEND_HEADS; *h; h++)
        if (!strcasecmp(p, *h))
            return 1;
    return 0;
}

/* Whether the block at I opens with a heading of recommendations (a carousel of other products
 * under "Customers also bought"), and is not most of what was chosen. */
static int recommendations(const art *a, size_t i)
{
    if (!a->v[i].has_block || nonlink(&a->v[i]) * 2 > a->scope)
        return 0;
    for (size_t k = i + 1; k < a->v[i].end; k++) {
        if (!a->v[k].text)
            continue; /* the first element with text */
        if (recommend_head(a, k))
            return 1;
        if (is_heading(a->v[k].node->v.element.tag) || !a->v[k].has_block)
            return 0;
    }
    return 0;
}

/* Whether TEXT, a text node of element N, is a template's placeholder that no script filled
 * ("{{ product.title }}", "{{priceAnchor.info.totalPrice}}" of a page rendered in the browser):
 * not text, but in code (a template language's manual) it is. */
#define CODE_LEVELS 4
static int unrendered(const GumboNode *n, const char *text)
{
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
        text++;
    if (text[0] != '{' || text[1] != '{')
        return 0;
    size_t len = strlen(text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    if (len < 5 || text[len - 1] != '}' || text[len - 2] != '}')
        return 0;
    for (int d = 0; d < CODE_LEVELS && n && n->type == GUMBO_NODE_ELEMENT; d++, n = n->parent) {
        GumboTag t = n->v.element.tag;
        if (t == GUMBO_TAG_CODE || t == GUMBO_TAG_PRE || t == GUMBO_TAG_KBD || t == GUMBO_TAG_SAMP || t == GUMBO_TAG_TT)
            return 0;
    }
    return 1;
}

static void emit(art *a, size_t id, out *o, int depth)
{
    const GumboNode *n = a->v[id].node;
    GumboTag t = n->v.element.tag;
    int block = is_block(t);
    if (block)
        o->para = 1;
    if (t == GUMBO_TAG_PRE)
        o->in_pre++;
    const GumboVector *kids = &n->v.element.children;
    size_t next = id + 1;
    for (unsigned i = 0; i < kids->length; i++) {
        const GumboNode *k = kids->data[i];
        if (k->type == GUMBO_NODE_TEXT || k->type == GUMBO_NODE_CDATA || k->type == GUMBO_NODE_WHITESPACE) {
            if (!unrendered(n, k->v.text.text))
                put_text(o, k->v.text.text);
            continue;
        }
        if (dropped(k, depth + 1))
            continue;
        size_t c = next;
        next = a->v[c].end;
        if (k->v.element.tag == GUMBO_TAG_BR) {
            o->line = 1;
            continue;
        }
        /* A bare link between blocks ("next", "read more") is navigation, not text; in a
         * listing the entries are such links (a job board's cards, a link around each), and in
         * a run of entries a link around a block is an entry's headline. */
        int bare_link = a->v[id].has_block && !is_block(k->v.element.tag) && a->v[c].text &&
                        a->v[c].link == a->v[c].text && !text_beside(kids, i) && a->scope_ld < SCOPE_LD &&
                        !(a->entries && a->v[c].has_block) && !item_headline(a, c);
        /* A heading over a block that is cut ("Related articles") or over nothing goes too. */
        GumboTag kt = k->v.element.tag;
        int orphan = kt >= GUMBO_TAG_H1 && kt <= GUMBO_TAG_H6 && next < a->v[id].end && cut(a, next);
        /* Recommendations: a block that opens with their heading. */
        if (is_block(kt) && recommendations(a, c))
            continue;
        if (!cut(a, c) && !bare_link && !orphan)
            emit(a, c, o, depth + 1);
    }
    if (t == GUMBO_TAG_PRE)
        o->in_pre--;
    if (block)
        o->para = 1;
}

static int depth_of(const art *a, size_t i)
{
    int d = 0;
    for (size_t p = a->v[i].parent; p != SIZE_MAX; p = a->v[p].parent)
        d++;
    return d;
}

/* The <h1> neighbourhood: a lead, summary or figure between the page's <h1> and the article
 * element C (at most LEAD_LEVELS up to their common ancestor, at most LEAD_MAX characters). */
static void emit_lead(art *a, size_t c, out *o)
{
    size_t h = a->h1;
    if (h == SIZE_MAX || h >= c || holds(a, h, c))
        return;
    int levels = 0;
    size_t p = a->v[c].parent;
    while (p != SIZE_MAX && !holds(a, p, h) && levels < LEAD_LEVELS) {
        p = a->v[p].parent;
        levels++;
    }
    if (p == SIZE_MAX || !holds(a, p, h))
        return;
    unsigned sum = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t j = a->v[h].end; j < c; j++) {
            size_t q = a->v[j].parent;
            if (holds(a, j, c) || !(holds(a, q, h) || holds(a, q, c)))
                continue;
            const node_stat *s = &a->v[j];
            if (cut(a, j) || link_density(s) >= 0.3 || !s->text)
                continue;
            if (pass == 0)
                sum += nonlink(s);
            else
                emit(a, j, o, depth_of(a, j));
            if (pass == 0 && sum > LEAD_MAX)
                return;
        }
}

/* The first class of N (the id when it has none) with digits removed, lower-cased, into BUF:
 * "answer accepted-answer" and "answer" are posts of one run, so are post_91 and post_92. */
static void signature(const GumboNode *n, char *buf, size_t cap)
{
    const char *c = rc_html_attr(n, "class");
    if (!c || !*c)
        c = rc_html_attr(n, "id");
    size_t k = 0;
    const char *s = c ? c : "";
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    for (; *s && *s != ' ' && *s != '\t' && *s != '\n' && k + 1 < cap; s++)
        if (*s < '0' || *s > '9')
            buf[k++] = (char)((*s >= 'A' && *s <= 'Z') ? *s + 32 : *s);
    buf[k] = 0;
}

static const char *const post_words[] = {"post", "reply", "answer", "message", "comment", NULL};

/* Forum and Q&A pages give the whole thread in order, the question or first post, then the
 * replies (what readers and both third-party sets take as the page's text). Comments are not a
 * thread: when most of the container C is a run of sibling blocks of the same tag and class
 * named like comments, the first is the article when nothing precedes the run (100+ characters
 * of text), and the others are cut. */
static void cut_comments(art *a, size_t c)
{
    char sig[256], sig2[256];
    for (size_t j = c + 1; j < a->v[c].end; j++) {
        const node_stat *s = &a->v[j];
        if (!is_block(s->node->v.element.tag) || !s->has_block || nonlink(s) < 100)
            continue;
        signature(s->node, sig, sizeof sig);
        if (!sig[0] || !any_in(sig, post_words))
            continue;
        size_t p = s->parent;
        unsigned group = nonlink(s), members = 1;
        for (size_t k = a->v[j].end; k < a->v[p].end; k = a->v[k].end) {
            signature(a->v[k].node, sig2, sizeof sig2);
            if (a->v[k].node->v.element.tag == s->node->v.element.tag && !strcmp(sig, sig2)) {
                group += nonlink(&a->v[k]);
                members++;
            }
        }
        if (members < 2 || group * 5 < nonlink(&a->v[c]) * 2)
            continue;
        if (!any_in(sig, comment_words))
            return; /* a thread: all of it */
        unsigned before = 0;
        for (size_t i = c; i < j;) {
            if (i != c && (cut(a, i) || a->v[i].node->v.element.tag == GUMBO_TAG_H1)) {
                i = a->v[i].end;
                continue;
            }
            unsigned own = nonlink(&a->v[i]);
            for (size_t k = i + 1; k < a->v[i].end; k = a->v[k].end)
                own -= nonlink(&a->v[k]);
            before += own;
            i++;
        }
        int question = before >= 100;
        for (size_t k = question ? j : a->v[j].end; k < a->v[p].end; k = a->v[k].end) {
            signature(a->v[k].node, sig2, sizeof sig2);
            if (a->v[k].node->v.element.tag == s->node->v.element.tag && !strcmp(sig, sig2))
                a->v[k].reply = 1;
        }
        return;
    }
}

/* The post of a forum or Q&A page that holds C, if any: an ancestor (at most POST_LEVELS up)
 * named like a post with a sibling of the same tag and class. */
static size_t post_of(const art *a, size_t c)
{
    char sig[256], sig2[256];
    size_t x = c;
    for (int level = 0; level < POST_LEVELS && x != SIZE_MAX; level++, x = a->v[x].parent) {
        const node_stat *s = &a->v[x];
        size_t p = s->parent;
        if (p == SIZE_MAX || !is_block(s->node->v.element.tag))
            continue;
        signature(s->node, sig, sizeof sig);
        if (!sig[0] || !any_in(sig, post_words))
            continue;
        for (size_t k = p + 1; k < a->v[p].end; k = a->v[k].end) {
            if (k == x || a->v[k].node->v.element.tag != s->node->v.element.tag)
                continue;
            signature(a->v[k].node, sig2, sizeof sig2);
            if (!strcmp(sig, sig2))
                return x;
        }
    }
    return SIZE_MAX;
}

/* A forum or Q&A page by its schema.org microdata: C is inside (or is) a DiscussionForumPosting
 * or a Question. The thread is then C's nearest ancestor (at most POST_LEVELS up, below
 * <body>) that holds two or more replies (Comment or Answer items), or SIZE_MAX. */
static size_t schema_thread(const art *a, size_t c)
{
    size_t x = c;
    while (x != SIZE_MAX && !a->v[x].forum_post)
        x = a->v[x].parent;
    if (x == SIZE_MAX)
        return SIZE_MAX;
    x = c;
    for (int level = 0; level <= POST_LEVELS && x != SIZE_MAX; level++, x = a->v[x].parent) {
        if (a->v[x].node->v.element.tag == GUMBO_TAG_BODY)
            break;
        unsigned replies = 0;
        for (size_t j = x + 1; j < a->v[x].end && replies < 2; j++)
            replies += a->v[j].reply_item;
        if (replies >= 2)
            return x;
    }
    return SIZE_MAX;
}

/* A listing, collection or shop page: the element C chosen (or an ancestor of it at most
 * ENTRY_LEVELS up) is one of ENTRY_MIN or more sibling entries of the same tag and class, which
 * together hold ENTRY_SHARE times its text: the page is the list, not one entry. Returns the
 * entries' parent, or SIZE_MAX. */
#define ENTRY_LEVELS 3
#define ENTRY_MIN 3
#define ENTRY_SHARE 2
static size_t entries_of(const art *a, size_t c)
{
    char sig[256], sig2[256];
    size_t x = c;
    for (int level = 0; level <= ENTRY_LEVELS && x != SIZE_MAX; level++, x = a->v[x].parent) {
        const node_stat *s = &a->v[x];
        size_t p = s->parent;
        if (p == SIZE_MAX || !is_block(s->node->v.element.tag) || a->v[p].node->v.element.tag == GUMBO_TAG_BODY)
            break;
        signature(s->node, sig, sizeof sig);
        if (!sig[0])
            continue;
        unsigned members = 0, group = 0;
        for (size_t k = p + 1; k < a->v[p].end; k = a->v[k].end) {
            if (a->v[k].node->v.element.tag != s->node->v.element.tag || a->v[k].boiler)
                continue;
            /* the same text again is a copy for another screen size, not another entry */
            unsigned t = nonlink(&a->v[k]), own = nonlink(s);
            if (k != x && (t > own ? t - own : own - t) * 100 <= own)
                continue;
            signature(a->v[k].node, sig2, sizeof sig2);
            if (!strcmp(sig, sig2)) {
                members++;
                group += t;
            }
        }
        if (members >= ENTRY_MIN && group >= ENTRY_SHARE * nonlink(&a->v[c]))
            return p;
    }
    return SIZE_MAX;
}

/* A page whose best block of paragraphs is small (a copyright line, a consent notice) while a
 * run of RUN_MIN or more sibling entries of the same tag and class holds RUN_SHARE times its
 * text (a news front page, a job board, a shop's grid: titles in links, short summaries that
 * score little each): the run's parent, or SIZE_MAX. */
#define RUN_MIN 4
#define RUN_SHARE 4
#define RUN_WEAK 1000 /* a best block with more text outside links is not weak */
static int is_heading(GumboTag t)
{
    return t >= GUMBO_TAG_H1 && t <= GUMBO_TAG_H6;
}

/* A heading, or a short block that opens with one (a wiki's heading with its "edit" link): it
 * heads the entries that follow, and does not end their run. */
#define HEADING_MAX 64
static int heading_block(const art *a, size_t k)
{
    const node_stat *s = &a->v[k];
    if (is_heading(s->node->v.element.tag))
        return 1;
    return s->text < HEADING_MAX && k + 1 < s->end && a->v[k + 1].parent == k &&
           is_heading(a->v[k + 1].node->v.element.tag);
}

/* A front page of sections, each a run of entries (a news site's top stories, then its sport):
 * the nearest ancestor of the longest run's parent FOUND (at most SPREAD_LEVELS up, below
 * <body>) whose runs hold SPREAD times its own; else FOUND. */
static size_t runs_spread(const art *a, size_t found, const unsigned *runs)
{
    size_t p = a->v[found].parent;
    for (int level = 0; level < SPREAD_LEVELS && p != SIZE_MAX; level++, p = a->v[p].parent) {
        if (a->v[p].node->v.element.tag == GUMBO_TAG_BODY || a->v[p].boiler || a->v[p].in_boiler)
            break;
        unsigned sum = 0;
        for (size_t q = p; q < a->v[p].end; q++)
            sum += runs[q];
        if (sum >= SPREAD * runs[found])
            return p;
    }
    return found;
}

static size_t run_of_entries(const art *a, size_t best)
{
    unsigned own = best == SIZE_MAX ? 0 : a->v[best].text;
    if (best != SIZE_MAX && nonlink(&a->v[best]) >= RUN_WEAK)
        return SIZE_MAX;
    char sig[256], prev[256];
    size_t found = SIZE_MAX;
    unsigned most = 0;
    unsigned *runs = rc_xcalloc(a->n, sizeof *runs); /* each element's longest run */
    for (size_t p = 0; p < a->n; p++) {
        if (a->v[p].boiler || a->v[p].in_boiler || !a->v[p].has_block)
            continue;
        unsigned run = 0, text = 0;
        GumboTag prev_tag = GUMBO_TAG_UNKNOWN;
        for (size_t k = p + 1; k < a->v[p].end; k = a->v[k].end) {
            const node_stat *s = &a->v[k];
            GumboTag t = s->node->v.element.tag;
            /* metadata in the body (a wiki's style <link>) or a heading over the next entries */
            if (t == GUMBO_TAG_LINK || t == GUMBO_TAG_META || (s->text && heading_block(a, k)))
                continue;
            if (!is_block(t) || s->boiler) {
                run = 0;
                continue;
            }
            if (!s->text)
                continue;
            signature(s->node, sig, sizeof sig);
            if (!run || t != prev_tag || strcmp(sig, prev))
                run = text = 0;
            memcpy(prev, sig, sizeof prev);
            prev_tag = t;
            run++;
            text += s->text;
            if (run >= RUN_MIN && text > runs[p])
                runs[p] = text;
            if (run >= RUN_MIN && text > most) {
                most = text;
                found = p;
            }
        }
    }
    if (found == SIZE_MAX || most < RUN_SHARE * (own > 250 ? own : 250))
        found = SIZE_MAX;
    else
        found = runs_spread(a, found, runs);
    free(runs);
    return found;
}

/* Whether the element at I says comments and boilerplate, and no ancestor of it does (a page
 * whose <body> is named "comments-page" holds the feed, it is not one). */
static int outer_comments(const art *a, size_t i)
{
    const node_stat *s = &a->v[i];
    if (!s->own_comment || !s->says_boiler)
        return 0;
    for (size_t p = s->parent; p != SIZE_MAX; p = a->v[p].parent)
        if (a->v[p].own_comment && a->v[p].says_boiler)
            return 0;
    return 1;
}

/* Whether the feed follows the block BEST as an article's comments do: both in one container,
 * at most FEED_LEVELS below it, the block first. */
#define FEED_LEVELS 4
static int commented(const art *a, size_t best, size_t feed)
{
    size_t x = best;
    for (int level = 0; level < FEED_LEVELS && a->v[x].parent != SIZE_MAX; level++) {
        size_t p = a->v[x].parent;
        if (holds(a, p, feed)) {
            if (holds(a, x, feed) || feed < x)
                return 0;
            int depth = 0;
            for (size_t q = a->v[feed].parent; q != p && depth < FEED_LEVELS; q = a->v[q].parent)
                depth++;
            return depth < FEED_LEVELS;
        }
        x = p;
    }
    return 0;
}

/* The largest element named comments (outermost, not mostly links), when it is the page's
 * thread rather than an article's comments, else SIZE_MAX. */
static size_t feed_candidate(const art *a)
{
    size_t feed = SIZE_MAX;
    for (size_t i = 0; i < a->n; i++) {
        const node_stat *s = &a->v[i];
        if (!s->has_block || s->in_boiler || link_density(s) >= SCOPE_LD || !outer_comments(a, i))
            continue;
        if (feed == SIZE_MAX || nonlink(s) > nonlink(&a->v[feed]))
            feed = i;
    }
    return feed;
}

/* A thread whose posts sit in a feed named comments (a forum's "#comments", each post a
 * "comment"; a link post's comment area): the page has no article of its own and the feed holds
 * RUN_SHARE times the best block's text. An article's comments stay cut: an <article> beside
 * the feed, a best block the feed follows in the same container, a best block that holds the
 * feed and MIN_ARTICLE_BODY of text besides, or one with RUN_WEAK characters and FEED_MASS of
 * paragraph scores say the page has one. Returns the feed, or SIZE_MAX. */
#define FEED_MASS 8
static size_t comments_feed(const art *a, size_t best)
{
    size_t feed = feed_candidate(a);
    if (feed == SIZE_MAX)
        return SIZE_MAX;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].article && !holds(a, i, feed) && !holds(a, feed, i) && nonlink(&a->v[i]) >= MIN_ARTICLE_BODY)
            return SIZE_MAX;
    unsigned own = 0;
    if (best != SIZE_MAX) {
        own = nonlink(&a->v[best]);
        if (holds(a, best, feed) && (own -= nonlink(&a->v[feed])) >= MIN_ARTICLE_BODY)
            return SIZE_MAX;
        if ((own >= RUN_WEAK && a->v[best].mass >= FEED_MASS) || commented(a, best, feed))
            return SIZE_MAX;
    }
    return nonlink(&a->v[feed]) >= RUN_SHARE * (own > 250 ? own : 250) ? feed : SIZE_MAX;
}

/* Whether C is another section of the article BEST is one of: the same tag and class (a
 * <section> after a <section>, a documentation page's parts), and it opens with a heading. */
static int sister_section(const art *a, size_t best, size_t c)
{
    const GumboNode *b = a->v[best].node, *n = a->v[c].node;
    GumboTag t = n->v.element.tag;
    if (t != b->v.element.tag || (t != GUMBO_TAG_SECTION && t != GUMBO_TAG_DIV))
        return 0;
    const char *bc = rc_html_attr(b, "class"), *nc = rc_html_attr(n, "class");
    if (bc ? !nc || strcmp(bc, nc) != 0 : nc && *nc)
        return 0;
    if (t == GUMBO_TAG_DIV && !(bc && *bc))
        return 0;
    for (size_t k = c + 1; k < a->v[c].end; k++) {
        if (!a->v[k].text)
            continue; /* the first element with text */
        if (is_heading(a->v[k].node->v.element.tag))
            return 1;
        if (!a->v[k].has_block)
            return 0;
    }
    return 0;
}

static void emit_article(art *a, size_t best, out *o)
{
    size_t parent = a->v[best].parent;
    if (parent == SIZE_MAX || a->v[best].node->v.element.tag == GUMBO_TAG_BODY) {
        emit_lead(a, best, o);
        emit(a, best, o, depth_of(a, best));
        return;
    }
    double bs = final_score(&a->v[best]);
    double threshold = bs * 0.2 > 10 ? bs * 0.2 : 10;
    size_t *sel = NULL, nsel = 0, cap = 0;
    size_t first = SIZE_MAX, last = 0, nkids = 0;
    for (size_t c = parent + 1; c < a->v[parent].end; c = a->v[c].end, nkids++) {
        const node_stat *s = &a->v[c];
        int take = c == best;
        if (!take && !s->boiler) {
            double ld = link_density(s);
            GumboTag t = s->node->v.element.tag;
            if (s->cand && final_score(s) >= threshold)
                take = 1;
            else if (t == GUMBO_TAG_P && s->text > 80 && ld < 0.25)
                take = 1;
            else if (s->cand && ld < SPREAD_LD && sister_section(a, best, c))
                take = 1;
        }
        if (take) {
            if (first == SIZE_MAX)
                first = nkids;
            last = nkids;
        }
        if (nsel == cap) {
            cap = cap ? cap * 2 : 16;
            sel = rc_xrealloc(sel, cap * 2 * sizeof(*sel));
        }
        sel[2 * nsel] = c;
        sel[2 * nsel + 1] = (size_t)take;
        nsel++;
    }
    if (first == SIZE_MAX) { /* best is always among parent's children; kept safe regardless */
        free(sel);
        emit_lead(a, best, o);
        emit(a, best, o, depth_of(a, best));
        return;
    }
    int d = depth_of(a, parent) + 1;
    emit_lead(a, sel[2 * first], o);
    for (size_t k = 0; k < nsel; k++) {
        size_t c = sel[2 * k];
        /* Between two parts of the article: headings, lists, figures, tables of the article. */
        int between = k > first && k < last && !cut(a, c);
        if (sel[2 * k + 1] || between)
            emit(a, c, o, d);
    }
    free(sel);
}

static unsigned visible_chars(const char *s)
{
    unsigned n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || (*p & 0xC0) == 0x80))
            n++;
    return n;
}

/* Text outside links of the named bodies in P that are in no other named body. */
static unsigned named_text(const art *a, size_t p)
{
    unsigned sum = 0;
    for (size_t j = p + 1; j < a->v[p].end;) {
        const node_stat *s = &a->v[j];
        if (s->boiler || s->comments) {
            j = s->end;
        } else if (s->body_class && nonlink(s) >= NAMED_PART) {
            sum += nonlink(s);
            j = s->end;
        } else {
            j++;
        }
    }
    return sum;
}

/* An article whose body the page marks in parts (a "rich-text" block per section): the nearest
 * ancestor of the largest part NAMED (at most NAMED_LEVELS up, below <body>) whose parts hold
 * twice its text. */
static size_t named_whole(const art *a, size_t named)
{
    unsigned own = nonlink(&a->v[named]);
    size_t p = a->v[named].parent;
    for (int level = 0; level < NAMED_LEVELS && p != SIZE_MAX; level++, p = a->v[p].parent) {
        if (a->v[p].node->v.element.tag == GUMBO_TAG_BODY || a->v[p].boiler || a->v[p].in_boiler)
            break;
        if (named_text(a, p) >= own * 2)
            return p;
    }
    return named;
}

/* The lead and all of C, a container taken whole (a thread, a list of entries). */
static void emit_whole(art *a, size_t c, out *o)
{
    a->scope = nonlink(&a->v[c]);
    a->scope_ld = link_density(&a->v[c]);
    emit_lead(a, c, o);
    emit(a, c, o, depth_of(a, c));
}

/* React's streaming server rendering (Next.js) sends a page's parts late, each in a <div hidden
 * id="S:n"> after the page's layout, and a script moves each into its placeholder (<template
 * id="B:n">; which chunk goes where is said only in the script). When the block chosen sits in
 * such a chunk, or holds their placeholders, the article is that block and the chunks with
 * paragraphs of their own (not mostly links), in order: its sections, sent apart. Returns
 * whether it emitted them. */
static int is_chunk(const node_stat *s)
{
    const char *id = rc_html_attr(s->node, "id");
    return s->node->v.element.tag == GUMBO_TAG_DIV && id && id[0] == 'S' && id[1] == ':';
}

static int chunk_part(const art *a, size_t k, size_t best)
{
    return is_chunk(&a->v[k]) && a->v[k].mass > 0 && link_density(&a->v[k]) < SCOPE_LD && !holds(a, k, best);
}

static int emit_chunks(art *a, size_t best, out *o)
{
    size_t x = best;
    while (a->v[x].parent != SIZE_MAX && a->v[a->v[x].parent].node->v.element.tag != GUMBO_TAG_BODY)
        x = a->v[x].parent;
    size_t body = a->v[x].parent;
    int holder = a->v[best].holder && !is_chunk(&a->v[x]);
    if (body == SIZE_MAX || !(holder || is_chunk(&a->v[x])))
        return 0;
    unsigned scope = holder ? nonlink(&a->v[best]) : 0, parts = 0;
    for (size_t k = body + 1; k < a->v[body].end; k = a->v[k].end)
        if (chunk_part(a, k, best) || (!holder && k == x)) {
            scope += nonlink(&a->v[k]);
            parts++;
        }
    if (parts < (holder ? 1u : 2u))
        return 0;
    a->scope = scope;
    a->scope_ld = 0;
    emit_lead(a, holder ? best : x, o);
    if (holder)
        emit(a, best, o, depth_of(a, best));
    for (size_t k = body + 1; k < a->v[body].end; k = a->v[k].end)
        if (chunk_part(a, k, best) || (!holder && k == x))
            emit(a, k, o, depth_of(a, k));
    return 1;
}

/* Which element holds the article, and emits it; whether that was a body the page names (only
 * if TRUST_NAMED). */
static int emit_best(art *a, out *o, int trust_named)
{
    size_t named = trust_named ? named_body(a) : SIZE_MAX;
    size_t best = best_candidate(a);
    if (best != SIZE_MAX)
        best = better_candidate(a, best);
    /* A named body is trusted unless the scoring found twice its text elsewhere; an explicit
     * itemprop=articleBody always. */
    if (named != SIZE_MAX &&
        (best == SIZE_MAX || a->v[named].itemprop || nonlink(&a->v[named]) * 2 >= nonlink(&a->v[best])))
        best = named;
    else
        named = SIZE_MAX;
    if (named != SIZE_MAX)
        best = named = named_whole(a, named);
    else if (best != SIZE_MAX)
        best = spread_of(a, best);
    size_t run = named == SIZE_MAX ? run_of_entries(a, best) : SIZE_MAX;
    if (run != SIZE_MAX)
        best = run;
    size_t feed = named == SIZE_MAX && run == SIZE_MAX ? comments_feed(a, best) : SIZE_MAX;
    if (feed != SIZE_MAX) {
        a->feed = 1;
        emit_whole(a, feed, o);
        a->feed = 0;
        return 0;
    }
    if (best == SIZE_MAX)
        return named != SIZE_MAX;
    size_t forum = schema_thread(a, best);
    if (forum != SIZE_MAX) {
        emit_whole(a, forum, o);
        return named != SIZE_MAX;
    }
    /* One post of a thread was chosen: the thread (two up: the posts' list, its parent). */
    size_t post = post_of(a, best);
    if (post != SIZE_MAX && a->v[post].parent != SIZE_MAX && a->v[a->v[post].parent].parent != SIZE_MAX) {
        size_t thread = a->v[a->v[post].parent].parent;
        a->scope = nonlink(&a->v[thread]);
        a->scope_ld = link_density(&a->v[thread]);
        cut_comments(a, thread);
        emit(a, thread, o, depth_of(a, thread));
        return named != SIZE_MAX;
    }
    size_t list = run != SIZE_MAX ? run : named == SIZE_MAX ? entries_of(a, best) : SIZE_MAX;
    if (list != SIZE_MAX) {
        a->entries = 1;
        emit_whole(a, list, o);
        a->entries = 0;
        return named != SIZE_MAX;
    }
    if (emit_chunks(a, best, o))
        return named != SIZE_MAX;
    a->scope = nonlink(&a->v[best]);
    a->scope_ld = link_density(&a->v[best]);
    /* A named article body holds no replies: sections of class "post-section" in it are the
     * article's (a forum's replies are outside its first post's body). */
    if (named == SIZE_MAX)
        cut_comments(a, best);
    if (named != SIZE_MAX) {
        emit_lead(a, named, o);
        emit(a, named, o, depth_of(a, named));
    } else {
        emit_article(a, best, o);
    }
    return named != SIZE_MAX;
}

/* A short paragraph that only credits a picture or a source ("Titelbild: ...", "Quelle: ...")
 * is a caption or a footer line, not the article's text. */
static const char *const CREDIT_LABELS[] = {
    "Titelbild", "Beitragsbild",   "Bildquelle", "Bild",  "Fotos", "Foto",   "Quelle", "Credits",
    "Credit",    "Crédits photos", "Źródło",     "Photo", "Image", "Source", "Fuente", NULL};
#define CREDIT_MAX 120

static int is_credit(const char *p, size_t len)
{
    if (len >= CREDIT_MAX)
        return 0;
    for (const char *const *l = CREDIT_LABELS; *l; l++) {
        size_t n = strlen(*l);
        if (n >= len || strncmp(p, *l, n) != 0)
            continue;
        while (n < len && p[n] == ' ')
            n++;
        if (n < len && p[n] == ':')
            return 1;
    }
    return 0;
}

/* A paragraph that is only the lead-in of related articles ("Read more:", "Mehr zum Thema") heads
 * links that were cut. */
static const char *const RELATED_LEADS[] = {"Mehr zum Thema",
                                            "Mehr Themen",
                                            "Das könnte dich auch interessieren",
                                            "Das könnte Sie auch interessieren",
                                            "Das Thema könnte dich auch interessieren",
                                            "Auch interessant",
                                            "Lesen Sie auch",
                                            "Weitere Artikel zum Thema",
                                            "Schon gelesen",
                                            "Zum Weiterlesen",
                                            "Related articles",
                                            "Related posts",
                                            "You may also like",
                                            "Read more",
                                            "Read also",
                                            NULL};

static int is_related_lead(const char *p, size_t len)
{
    while (len && (p[len - 1] == ':' || p[len - 1] == '?' || p[len - 1] == ' '))
        len--;
    for (const char *const *l = RELATED_LEADS; *l; l++)
        if (strlen(*l) == len && strncasecmp(p, *l, len) == 0)
            return 1;
    return 0;
}

/* Whether the paragraph P (LEN bytes) is a placeholder that a script fills ("Loading...",
 * "Loading…"): the page's text is what replaces it, if it is in the page at all. */
static int is_placeholder(const char *p, size_t len)
{
    while (len && (p[len - 1] == '.' || p[len - 1] == ' '))
        len--;
    if (len >= 3 && (unsigned char)p[len - 3] == 0xE2 && (unsigned char)p[len - 2] == 0x80 &&
        (unsigned char)p[len - 1] == 0xA6) /* U+2026 ... */
        len -= 3;
    return len == 7 && strncasecmp(p, "Loading", 7) == 0;
}

/* Removes the credit paragraphs, related-article lead-ins and placeholders from TEXT, in place. */
static void drop_credits(char *text)
{
    char *w = text;
    for (const char *p = text; *p;) {
        const char *e = strstr(p, "\n\n");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!is_credit(p, len) && !is_related_lead(p, len) && !is_placeholder(p, len)) {
            if (w != text) {
                memcpy(w, "\n\n", 2);
                w += 2;
            }
            memmove(w, p, len);
            w += len;
        }
        p += len;
        if (e)
            p += 2;
    }
    *w = '\0';
}

/* ---- repeated passages ------------------------------------------------------------------------ */

/* A repeated run shorter than this is kept: a plan or a table may repeat a few lines. */
#define REPEAT_MIN 400
/* A paragraph this long that the next one opens with is a preview of it. */
#define PREVIEW_MIN 100

/* One paragraph of the text: where it is and the index of its first occurrence. */
typedef struct {
    const char *p;
    size_t len, first;
} para;

static size_t paras_of(const char *text, para *v)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        const char *e = strstr(p, "\n\n");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (v)
            v[n] = (para){.p = p, .len = len, .first = n};
        n++;
        p += len + (e ? 2 : 0);
    }
    return n;
}

static uint64_t para_hash(const para *q)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < q->len; i++)
        h = (h ^ (unsigned char)q->p[i]) * 1099511628211ULL;
    return h;
}

/* Sets each paragraph's first occurrence (an open-addressed table of indexes + 1). */
static void find_firsts(para *v, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    size_t *t = rc_xcalloc(cap, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)para_hash(&v[i]) & (cap - 1);
        for (; t[h]; h = (h + 1) & (cap - 1)) {
            const para *o = &v[t[h] - 1];
            if (o->len == v[i].len && memcmp(o->p, v[i].p, o->len) == 0) {
                v[i].first = t[h] - 1;
                break;
            }
        }
        if (!t[h])
            t[h] = i + 1;
    }
    free(t);
}

/* Removes from TEXT, in place, a paragraph or a run of paragraphs that repeats an earlier run in
 * the same order (REPEAT_MIN characters or more): the same block given again for another screen
 * size, a tab, a quote of a whole post or of one long paragraph of it (a reply quoting the
 * question). A short paragraph that recurs among others (a product line under each item, a rule
 * under each offer) stays. */
static void drop_repeats(char *text)
{
    size_t n = paras_of(text, NULL);
    if (n < 4)
        return;
    para *v = rc_xmalloc(n * sizeof *v);
    paras_of(text, v);
    find_firsts(v, n);
    unsigned char *drop = rc_xcalloc(n, 1);
    for (size_t i = 0; i < n;) {
        size_t run = 0, chars = 0;
        while (i + run < n && v[i + run].first != i + run && v[i + run].first == v[i].first + run)
            chars += v[i + run++].len;
        if (chars >= REPEAT_MIN)
            memset(drop + i, 1, run);
        i += run ? run : 1;
    }
    /* A paragraph that the next one kept opens with is its preview (an answer cut short over a
     * "more" control, then given whole). */
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && drop[j]; j++)
            ;
        if (!drop[i] && j < n && v[i].len >= PREVIEW_MIN && v[j].len > v[i].len &&
            memcmp(v[i].p, v[j].p, v[i].len) == 0)
            drop[i] = 1;
    }
    char *w = text;
    for (size_t i = 0; i < n; i++) {
        if (drop[i])
            continue;
        if (w != text) {
            memcpy(w, "\n\n", 2);
            w += 2;
        }
        memmove(w, v[i].p, v[i].len);
        w += v[i].len;
    }
    *w = '\0';
    free(drop);
    free(v);
}

/* Whether S is markup rather than text: a tag, or a tag escaped as an entity ("&lt;p&gt;", a
 * CMS that stores its HTML in articleBody): its text would carry the tags and attributes. */
static int is_markup(const char *s)
{
    if (strchr(s, '<'))
        return 1;
    for (const char *p = strstr(s, "&lt;"); p; p = strstr(p + 4, "&lt;")) {
        char c = p[4];
        if (c == '/' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            return 1;
    }
    return 0;
}

char *rc_article_text(const GumboNode *root)
{
    matcher match;
    matcher_init(&match);
    art a = {.h1 = SIZE_MAX, .match = &match};
    out o = {0};
    rc_buf_init(&o.b);
    const GumboNode *html = NULL;
    const GumboVector *kids = &root->v.document.children;
    for (unsigned i = 0; i < kids->length; i++) {
        const GumboNode *k = kids->data[i];
        if (k->type == GUMBO_NODE_ELEMENT)
            html = k;
    }
    if (html) {
        collect(&a, html, SIZE_MAX, 0, 0);
        mark_boiler(&a);
        score(&a);
        /* A named body that gives no text (a teaser whose words are all links, a player) is
         * not the article: the scoring and the runs of entries decide. */
        if (emit_best(&a, &o, 1) && !o.b.len)
            emit_best(&a, &o, 0);
    }
    char *text = rc_buf_steal(&o.b);
    drop_credits(text);
    drop_repeats(text);
    if (a.jsonld_body && !is_markup(a.jsonld_body) && visible_chars(a.jsonld_body) > visible_chars(text) * 13 / 10) {
        free(text);
        text = rc_xstrdup(a.jsonld_body);
    }
    json_decref(a.jsonld);
    free(a.v);
    return text;
}
