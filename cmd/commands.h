/* The subcommands: each takes the arguments after its name. */
#ifndef PMRAG_COMMANDS_H
#define PMRAG_COMMANDS_H

int cmd_index(int argc, char **argv);
int cmd_symbols(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_ppr(int argc, char **argv);
int cmd_impact(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_mine(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_remap(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_state(int argc, char **argv);
int cmd_kafka_mock(int argc, char **argv);

#endif
