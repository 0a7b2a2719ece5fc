/* kingbot.h: a small helper for King League bots in C (the C library only), the
 * conventions of the Python helper module kingbot carried over.
 *
 *     static const char *choose(const kb_request *request) { return request->legal[0]; }
 *     int main(void) { return kb_run(choose); }
 *
 * kb_run() answers "hello" with "ready", calls choose once per request and writes its
 * answer, and returns at "end". If choose returns NULL or something that is not a legal
 * action, kb_run() plays the first legal action instead, with a "fallback" saying why.
 */
#ifndef KINGBOT_H
#define KINGBOT_H

#include <stddef.h>

#define KB_MAX_ITEMS 128

/* A JSON value, parsed from one line. */
typedef enum { KB_NULL, KB_BOOL, KB_NUMBER, KB_STRING, KB_ARRAY, KB_OBJECT } kb_kind;
typedef struct kb_json {
    kb_kind kind;
    double number;          /* KB_NUMBER, KB_BOOL (0 or 1) */
    char *string;           /* KB_STRING */
    size_t count;           /* KB_ARRAY, KB_OBJECT */
    char **keys;            /* KB_OBJECT */
    struct kb_json *items;  /* KB_ARRAY, KB_OBJECT */
} kb_json;

/* One decision: the seat's view, its legal actions and its time, with shortcuts. */
typedef struct {
    long id;
    int seat;                     /* from hello */
    const char *game;             /* from hello */
    const kb_json *view;
    const char *legal[KB_MAX_ITEMS];
    size_t legal_count;
    const char *hand[KB_MAX_ITEMS];
    size_t hand_count;
    const char *trick[KB_MAX_ITEMS];
    size_t trick_count;
    const char *trump;            /* NULL: no trumps (or not known yet) */
    const char *playable[KB_MAX_ITEMS]; /* the cards of the legal "play" actions */
    size_t playable_count;
    double move_ms, bank_ms;
} kb_request;

typedef const char *(*kb_chooser)(const kb_request *request);

int kb_rank(const char *card);                  /* 0 for a two ... 12 for an ace */
char kb_suit(const char *card);
const char *kb_card_of(const char *action);     /* "play QS" -> "QS", else NULL */
int kb_beats(const char *card, const char *best, char led, const char *trump);
const char *kb_winning_card(const char *const *trick, size_t count, const char *trump);
const kb_json *kb_get(const kb_json *object, const char *key);
void kb_log(const char *text);                  /* a line on stderr, kept by the league */
int kb_run(kb_chooser choose);

#endif
