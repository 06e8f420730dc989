"""scrapy-redis on the bench web: `scrapy runspider benchspider_redis.py -s REDIS_URL=...`;
start URLs come from the Redis list bench:start_urls, the frontier and the seen-set live in
Redis (scrapy-redis's scheduler and dupefilter), so several processes share one crawl. It
closes after MAX_IDLE_TIME_BEFORE_CLOSE idle seconds (bench.sh times crawls to the last page
served, so that wait is not counted)."""
from benchcommon import SETTINGS, BenchMixin
from scrapy_redis.spiders import RedisSpider


class BenchRedisSpider(BenchMixin, RedisSpider):
    redis_key = "bench:start_urls"
    custom_settings = dict(
        SETTINGS,
        SCHEDULER="scrapy_redis.scheduler.Scheduler",
        DUPEFILTER_CLASS="scrapy_redis.dupefilter.RFPDupeFilter",
        # keep the shared queue and seen-set when a process closes: without it the first process
        # to go idle flushes them and the other crawls everything again (the Redis is private
        # to the run and thrown away after it)
        SCHEDULER_PERSIST=True,
        MAX_IDLE_TIME_BEFORE_CLOSE=2,
    )
