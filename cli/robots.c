/* robots.c - `redcrawl robots`: check URLs against a robots.txt file with the crawler's own parser
 * and matcher (shared/robots.c), to debug why a page was or was not fetched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "robots.h"
#include "url.h"
#include "util.h"

#define DEFAULT_AGENT "redcrawl"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: redcrawl robots [--agent NAME] [--verbose] ROBOTS_FILE URL...\n"
            "\n"
            "Checks each URL against ROBOTS_FILE (\"-\" reads standard input) as the crawler would and\n"
            "prints one line per URL: \"allowed URL\" or \"disallowed URL\", URL as given. Paths are\n"
            "matched after normalising the URL. Files over %d KiB are cut there (RFC 9309).\n"
            "\n"
            "options:\n"
            "  --agent NAME   user agent whose group applies (default " DEFAULT_AGENT "); only the product\n"
            "                 token counts, so \"redcrawl/0.1\" is \"redcrawl\"\n"
            "  -v, --verbose  first print the group's crawl-delay and the file's sitemaps, as '#' lines\n"
            "  -h, --help     show this help\n"
            "\n"
            "exit status: 0 when every URL was checked, 1 when a URL was invalid or the file unreadable,\n"
            "2 for usage errors.\n",
            RC_ROBOTS_MAX_BYTES / 1024);
}

/* Reads at most RC_ROBOTS_MAX_BYTES + 1 bytes of PATH ("-": stdin) into B: the parser only needs
 * to see whether the limit falls on a line end. 0, or a negative errno. */
static int read_robots(const char *path, rc_buf *b)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char chunk[16384];
    size_t want = RC_ROBOTS_MAX_BYTES + 1;
    int err = 0;

    if (!f)
        return -errno;
    rc_buf_append(b, "", 0);
    errno = 0;
    while (b->len < want) {
        size_t n = fread(chunk, 1, RC_MIN(sizeof chunk, want - b->len), f);
        if (n == 0)
            break;
        rc_buf_append(b, chunk, n);
    }
    if (ferror(f))
        err = errno ? -errno : -EIO; /* e.g. EISDIR: fopen() opens a directory */
    if (f != stdin)
        fclose(f);
    return err;
}

/* The options, anywhere up to "--"; the other arguments go to POS (room for argc), their number
 * to *ret_n. 0, 1 after --help, or the exit status 2 after a message. */
static int parse_options(int argc, char **argv, const char **agent, int *verbose, char **pos, int *ret_n)
{
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--agent") == 0) {
            if (++i == argc) {
                fprintf(stderr, "redcrawl robots: --agent needs a value\n");
                return 2;
            }
            *agent = argv[i];
        } else if (strncmp(a, "--agent=", 8) == 0) {
            *agent = a + 8;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            *verbose = 1;
        } else if (strcmp(a, "--") == 0) {
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "redcrawl robots: unknown option '%s' (see --help)\n", a);
            return 2;
        } else {
            pos[n++] = argv[i];
        }
    }
    while (++i < argc)
        pos[n++] = argv[i];
    *ret_n = n;
    return 0;
}

/* --verbose: the file's crawl-delay and sitemaps, as comments. */
static void print_facts(const rc_robots *r)
{
    const char *const *maps;
    size_t n = rc_robots_sitemaps(r, &maps);
    double delay = rc_robots_crawl_delay(r);
    if (delay >= 0)
        printf("# crawl-delay %g\n", delay);
    else
        printf("# crawl-delay none\n");
    for (size_t k = 0; k < n; k++)
        printf("# sitemap %s\n", maps[k]);
}

/* "allowed URL" or "disallowed URL"; 1 for a URL that cannot be read. */
static int print_verdict(const rc_robots *r, const char *url)
{
    char *norm = NULL;
    int uerr = rc_url_normalize(url, &norm);
    if (uerr < 0) {
        fprintf(stderr, "redcrawl robots: bad URL '%s': %s\n", url, rc_url_strerror(uerr));
        return 1;
    }
    /* A normalised URL is scheme "://" authority, then a path that always starts with '/'. */
    const char *path = strchr(strstr(norm, "://") + 3, '/');
    printf("%s %s\n", rc_robots_allowed(r, path ? path : "/") ? "allowed" : "disallowed", url);
    free(norm);
    return 0;
}

static int check_urls(const char *file, const char *agent, int verbose, char **urls, int n)
{
    rc_buf body;
    rc_buf_init(&body);
    int err = read_robots(file, &body);
    if (err < 0) {
        fprintf(stderr, "redcrawl robots: cannot read %s: %s\n", strcmp(file, "-") == 0 ? "standard input" : file,
                strerror(-err));
        rc_buf_release(&body);
        return 1;
    }
    rc_robots *r = rc_robots_parse(body.ptr, body.len, agent);
    rc_buf_release(&body);
    if (verbose)
        print_facts(r);
    int rc = 0;
    for (int i = 0; i < n; i++)
        rc |= print_verdict(r, urls[i]);
    fflush(stdout);
    rc_robots_free(r);
    return rc;
}

int rc_cli_robots(int argc, char **argv)
{
    const char *agent = DEFAULT_AGENT;
    int verbose = 0, n = 0;
    char **pos = rc_xmalloc((size_t)(argc > 0 ? argc : 1) * sizeof *pos);
    int rc = parse_options(argc, argv, &agent, &verbose, pos, &n);
    if (rc) {
        free(pos);
        return rc == 1 ? 0 : rc;
    }
    if (n < 2) {
        fprintf(stderr, "redcrawl robots: give a robots.txt file and at least one URL\n\n");
        usage(stderr);
        free(pos);
        return 2;
    }
    if (agent[0] == '\0')
        fprintf(stderr, "redcrawl robots: warning: empty --agent, only '*' groups apply\n");
    rc = check_urls(pos[0], agent, verbose, pos + 1, n - 1);
    free(pos);
    return rc;
}
