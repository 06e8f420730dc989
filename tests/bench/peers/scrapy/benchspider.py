"""Plain Scrapy on the bench web: `scrapy runspider benchspider.py -a seeds=FILE` (one start
URL a line); settings in benchcommon.py, plus the broad-crawl priority queue."""
import scrapy
from benchcommon import SETTINGS, BenchMixin


class BenchSpider(BenchMixin, scrapy.Spider):
    custom_settings = dict(SETTINGS, SCHEDULER_PRIORITY_QUEUE="scrapy.pqueues.DownloaderAwarePriorityQueue")

    def __init__(self, seeds=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seed_file = seeds

    async def start(self):
        with open(self.seed_file) as f:
            for line in f:
                if line.strip():
                    yield scrapy.Request(line.strip(), callback=self.parse)
