/* cli.h - the `redcrawl` subcommands. Each takes argv with argv[0] = the subcommand name and
 * returns the process exit status. */
#ifndef RC_CLI_H
#define RC_CLI_H

int rc_cli_crawl(int argc, char **argv);
int rc_cli_submit(int argc, char **argv);
int rc_cli_info(int argc, char **argv);
int rc_cli_stop(int argc, char **argv);
int rc_cli_stats(int argc, char **argv);
int rc_cli_status(int argc, char **argv);
int rc_cli_domain(int argc, char **argv);
int rc_cli_drain(int argc, char **argv);
int rc_cli_shard(int argc, char **argv);
int rc_cli_robots(int argc, char **argv);
int rc_cli_extract(int argc, char **argv);

#endif
