/* xmlinit.h - libxml2's globals set up once, by the first thread that needs them.
 *
 * libxml2 2.9 initialises its globals lazily and racily (two threads coming first at once), so a
 * threaded program calls xmlInitParser() before using it. Called at start-up, that set-up (its
 * encodings, dictionaries, threads, memory hooks) touched ~0.5 MB of libxml2's code in every
 * worker, though a link-only crawl never uses libxml2. rc_xml_init() runs it once, race-free,
 * right before the first use: every function of redcrawl that calls into libxml2 calls it first. */
#ifndef RC_XMLINIT_H
#define RC_XMLINIT_H

/* Any thread, any number of times: the first call initialises libxml2, the others wait for it. */
void rc_xml_init(void);

#endif
