/* xmlinit.c - see xmlinit.h. */
#include "xmlinit.h"

#include <libxml/parser.h>
#include <pthread.h>

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
    xmlInitParser();
}

void rc_xml_init(void)
{
    pthread_once(&xml_once, init_once);
}
