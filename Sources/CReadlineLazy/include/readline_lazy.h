#ifndef MIADMIN_READLINE_LAZY_H
#define MIADMIN_READLINE_LAZY_H
// GNU readline, opened when the console is about to prompt (see lazy_library.h for why): a run
// from -c, a script or a pipe never loads it, and at the prompt it is loaded on the thread that
// sets readline up while the login waits on the directory. Loading readline and its terminfo
// library was a measurable part of every start (docs/benchmarks.md).
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

/// Opens libreadline; 1 when it is open, 0 with *error saying why not.
int miadmin_readline_open(const char **error);

/// Where readline's variables are, in the opened library. The Swift code reaches them only
/// through these pointers: a direct reference to a variable would bind the binary to the
/// library at start-up again.
typedef struct miadmin_readline_variables {
    __typeof__(rl_readline_name) *readline_name;
    __typeof__(rl_completer_quote_characters) *completer_quote_characters;
    __typeof__(rl_basic_word_break_characters) *basic_word_break_characters;
    __typeof__(rl_completer_word_break_characters) *completer_word_break_characters;
    __typeof__(rl_attempted_completion_function) *attempted_completion_function;
    __typeof__(rl_signal_event_hook) *signal_event_hook;
    __typeof__(rl_attempted_completion_over) *attempted_completion_over;
    __typeof__(rl_line_buffer) *line_buffer;
    __typeof__(rl_completion_quote_character) *completion_quote_character;
    __typeof__(rl_completion_suppress_append) *completion_suppress_append;
} miadmin_readline_variables;

/// The variables of the opened library (miadmin_readline_open first; aborts when it failed).
const miadmin_readline_variables *miadmin_readline_variables_get(void);
#endif
