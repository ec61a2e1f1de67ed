/*
 * flow_int.h - private to graph/'s control flow: the builder the
 * extractors' flow passes share (flow.c), and the passes themselves
 * (py_flow.c, ts_flow.c), which read the syntax tree once more after the
 * walk and record, per function, what can run after what (gx_flow).
 *
 * A pass builds one function at a time as a small graph of nodes: the
 * entry, the end, an exception out, joins (points between statements),
 * and items (the calls). Branches split the weight that reaches them
 * evenly; a loop's body is entered or not, and run again or not, half and
 * half (a `while True` always); a try's body raises into its handlers
 * with weight FB_RAISE_SHARE, from its start or from one of its calls
 * alike (each with that share of the weight against 1 for going on); a function
 * handed on as a callback runs, or not, after the call it is handed to.
 * graph__fb_end() then keeps only what the items see of it: for the entry
 * and each item, the items (or the end) next reached, the joins between
 * them folded in.
 */
#ifndef PMRAG_FLOW_INT_H
#define PMRAG_FLOW_INT_H

#include "graph_int.h"

#define FB_NONE UINT32_MAX
/* Fixed nodes of every function. */
#define FB_ENTRY 0u
#define FB_EXIT 1u
#define FB_RAISE 2u
/* A try's body raises into its handlers with about this weight, split
 * over the places it may raise from. */
#define FB_RAISE_SHARE 0.2f
/* Nesting of loops and tries followed; deeper ones are flattened. */
#define FB_MAX_NEST 64

typedef struct fb_node {
    uint32_t item; /* index in the function's items, or FB_NONE (a join) */
} fb_node;

typedef struct fb_edge {
    uint32_t from, to;
    float w;
} fb_edge;

typedef struct gx_fb {
    gx_file *f;
    int32_t sym;
    uint32_t item0; /* the function's first item in f->flow_items */
    core_vec(fb_node) nodes;
    core_vec(fb_edge) edges;
    /* The innermost loops (where break and continue go) and tries (where
     * a call's exception goes: FB_NONE for a try without handlers). */
    uint32_t brk[FB_MAX_NEST], cont[FB_MAX_NEST], nloop;
    uint32_t handler[FB_MAX_NEST], ntry;
    /* Where an exception may come from in the tries open, with the level
     * of the try that catches it (the innermost with handlers). */
    core_vec(uint64_t) raisers;
    /* Where a return goes (the end, or after a callback written inline),
     * and the loops and tries below these belong to a function around
     * the one being built. */
    uint32_t ret, loop_base, try_base;
    /* The functions and methods of f by their last line (graph__fb_sym). */
    uint32_t *by_end;
    uint32_t nby_end;
    /* graph__fb_end()'s scratch */
    core_vec(uint32_t) hit;
    uint32_t *off;
    double *mass;
    uint32_t *stack;
    size_t cap;
} gx_fb;

/* f must hold the walk's whole result: its symbols are indexed here. */
void graph__fb_init(gx_fb *b, gx_file *f);
void graph__fb_free(gx_fb *b);
/* Starts the flow of symbol sym (-1: the top level); returns the entry. */
uint32_t graph__fb_begin(gx_fb *b, int32_t sym);
/* Adds what is built to f: the end reached from cur (FB_NONE: none). */
void graph__fb_end(gx_fb *b, uint32_t cur);

uint32_t graph__fb_join(gx_fb *b);
/* An edge of weight w (relative to the node's other edges). Nothing
 * when from is FB_NONE (code after a return or a raise). */
void graph__fb_edge(gx_fb *b, uint32_t from, uint32_t to, float w);
/* A join reached from cur; FB_NONE when cur is. */
uint32_t graph__fb_after(gx_fb *b, uint32_t cur);
/* An item after cur (a call on line line, or a callback handed on,
 * whose callee's last name is name: copied), inside the current try when
 * there is one. Returns it, or FB_NONE when cur is FB_NONE. */
uint32_t graph__fb_item(gx_fb *b, uint32_t cur, gx_flow_kind kind, const char *name, uint32_t line);

/* Loops: break goes to brk, continue to cont. */
void graph__fb_loop_push(gx_fb *b, uint32_t brk, uint32_t cont);
void graph__fb_loop_pop(gx_fb *b);
uint32_t graph__fb_break(const gx_fb *b);
uint32_t graph__fb_continue(const gx_fb *b);
/* A break (or a continue) at cur: an edge to where it goes, and FB_NONE
 * after it; cur as it is when there is no loop to leave. */
uint32_t graph__fb_leave(gx_fb *b, uint32_t cur, bool is_break);
/* Tries: an exception in the body, from its start (from) or from one of
 * its calls, and a raise go to handler (FB_NONE: a try without handlers,
 * whose exceptions go where the try around it sends them). */
void graph__fb_try_push(gx_fb *b, uint32_t handler, uint32_t from);
/* Ends the body: the edges to the handler. */
void graph__fb_try_pop(gx_fb *b);
/* Where a raise at this point goes. */
uint32_t graph__fb_raise_target(const gx_fb *b);
/* Where a return goes. */
uint32_t graph__fb_return_target(const gx_fb *b);
/* A return (or a raise) whose value ends at from: an edge to its target,
 * and FB_NONE after it. */
uint32_t graph__fb_exit(gx_fb *b, uint32_t from, bool is_raise);

/* A callback is built inline, where it is handed on: inside it a return
 * goes to ret, and the loops and tries around it are not its own. */
typedef struct fb_saved {
    uint32_t ret, loop_base, try_base;
} fb_saved;
fb_saved graph__fb_inline_begin(gx_fb *b, uint32_t ret);
void graph__fb_inline_end(gx_fb *b, fb_saved s);

/* The passes (py_flow.c, ts_flow.c): root is the file's tree, src its
 * text; f holds the walk's result (symbols, emits). */
void graph__py_flow(gx_file *f, const char *src, TSNode root);
void graph__ts_flow(graph_lang lang, gx_file *f, const char *src, TSNode root);

/* The symbol the walk made for the function node spanning lines line ..
 * end (its symbol may start earlier: decorators, `const f =`): a function
 * or method ending there, the latest starting at or before line (the
 * first of those), not one claimed (claimed[sym] nonzero; claimed may be
 * NULL); name, when not NULL, must be its name. -1 when there is none (a
 * callback, which is part of the function around it). */
int32_t graph__fb_sym(const gx_fb *b, uint32_t line, uint32_t end, const char *name,
                      const uint8_t *claimed);

#endif
