// Trampolines for the readline functions miadmin calls (MIConsole's prompt), and the addresses
// of the variables it sets and reads. A function added to the Swift code needs its line here,
// or the link fails naming it.
#include "readline_lazy.h"
#include "lazy_library.h"
#include <pthread.h>

static miadmin_library readline_library = { .soname = "libreadline.so.8", .purpose = "the prompt" };

int miadmin_readline_open(const char **error) { return miadmin_library_open(&readline_library, error); }

static miadmin_readline_variables variables;
static pthread_once_t variables_once = PTHREAD_ONCE_INIT;

static void find_variables(void) {
#define FIND(field, name) variables.field = (__typeof__(variables.field))miadmin_library_symbol(&readline_library, #name)
    FIND(readline_name, rl_readline_name);
    FIND(completer_quote_characters, rl_completer_quote_characters);
    FIND(basic_word_break_characters, rl_basic_word_break_characters);
    FIND(completer_word_break_characters, rl_completer_word_break_characters);
    FIND(attempted_completion_function, rl_attempted_completion_function);
    FIND(signal_event_hook, rl_signal_event_hook);
    FIND(attempted_completion_over, rl_attempted_completion_over);
    FIND(line_buffer, rl_line_buffer);
    FIND(completion_quote_character, rl_completion_quote_character);
    FIND(completion_suppress_append, rl_completion_suppress_append);
#undef FIND
}

const miadmin_readline_variables *miadmin_readline_variables_get(void) {
    pthread_once(&variables_once, find_variables);
    return &variables;
}

MIADMIN_LAZY(readline_library, char *, readline, (const char *prompt), (prompt))
MIADMIN_LAZY(readline_library, int, rl_initialize, (void), ())
MIADMIN_LAZY(readline_library, int, rl_crlf, (void), ())
MIADMIN_LAZY_VOID(readline_library, rl_replace_line, (const char *text, int clear_undo), (text, clear_undo))
MIADMIN_LAZY(readline_library, int, rl_on_new_line, (void), ())
MIADMIN_LAZY_VOID(readline_library, rl_redisplay, (void), ())
MIADMIN_LAZY(readline_library, char **, rl_completion_matches, (const char *text, rl_compentry_func_t *entry),
             (text, entry))
MIADMIN_LAZY_VOID(readline_library, add_history, (const char *line), (line))
MIADMIN_LAZY(readline_library, int, append_history, (int count, const char *file), (count, file))
MIADMIN_LAZY(readline_library, int, history_truncate_file, (const char *file, int lines), (file, lines))
MIADMIN_LAZY_VOID(readline_library, stifle_history, (int max), (max))
MIADMIN_LAZY(readline_library, int, read_history, (const char *file), (file))
