"""Scrapy's own way to resolve the bench web's host names: a DNS_RESOLVER that answers
*.bench.test with 127.0.0.1 (everything else goes to Scrapy's usual caching resolver), so the
system resolver and /etc/hosts are never asked."""
from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer


class LoopbackResolver(CachingThreadedResolver):
    def getHostByName(self, name, timeout=()):
        if name.endswith(".bench.test"):
            return defer.succeed("127.0.0.1")
        return super().getHostByName(name, timeout)
