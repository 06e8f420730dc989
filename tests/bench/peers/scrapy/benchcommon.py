"""What the two Scrapy spiders of scripts/bench.sh share: Scrapy's "broad crawl" settings with
robots.txt obeyed and one request per host at a time (CONCURRENT_REQUESTS_PER_DOMAIN=1 on the
epoll reactor: Scrapy 2.19's default asyncio reactor does not enforce it), and a parse that
follows every <a href> through Scrapy's LinkExtractor, the usual way."""
import scrapy
from scrapy.linkextractors import LinkExtractor

SETTINGS = {
    # TWISTED_REACTOR=twisted.internet.epollreactor.EPollReactor and
    # DNS_RESOLVER=benchresolver.LoopbackResolver are given with -s: runspider installs the
    # reactor and its resolver before it reads a spider's custom_settings
    "ROBOTSTXT_OBEY": True,
    "CONCURRENT_REQUESTS": 1000,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "DOWNLOAD_DELAY": 0,
    "AUTOTHROTTLE_ENABLED": False,
    "DEPTH_LIMIT": 0,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
    "USER_AGENT": "scrapy-bench",
}


class BenchMixin:
    name = "bench"
    allowed_domains = ["bench.test"]
    link_extractor = LinkExtractor()

    def parse(self, response):
        for link in self.link_extractor.extract_links(response):
            yield scrapy.Request(link.url, callback=self.parse)
