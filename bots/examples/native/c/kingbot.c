/* kingbot.c: the protocol of King League bots in C; see kingbot.h. */
#include "kingbot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char RANKS[] = "23456789TJQKA";

int kb_rank(const char *card) {
    const char *at = strchr(RANKS, card[0]);
    return at && card[0] ? (int)(at - RANKS) : -1;
}

char kb_suit(const char *card) { return card[1]; }

const char *kb_card_of(const char *action) {
    return strncmp(action, "play ", 5) == 0 ? action + 5 : NULL;
}

int kb_beats(const char *card, const char *best, char led, const char *trump) {
    (void)led;
    if (card[1] == best[1]) return kb_rank(card) > kb_rank(best);
    return trump != NULL && card[1] == trump[0];
}

const char *kb_winning_card(const char *const *trick, size_t count, const char *trump) {
    if (count == 0) return NULL;
    const char *best = trick[0];
    for (size_t i = 1; i < count; i++)
        if (kb_beats(trick[i], best, trick[0][1], trump)) best = trick[i];
    return best;
}

void kb_log(const char *text) {
    fprintf(stderr, "%s\n", text);
    fflush(stderr);
}

/* ------------------------------------------------------------------ JSON */

typedef struct { const char *at; } parser;

static void skip(parser *p) {
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r') p->at++;
}

static int parse_value(parser *p, kb_json *out);

static char *parse_string(parser *p) {
    size_t size = 16, length = 0;
    char *out = malloc(size);
    if (!out) return NULL;
    p->at++; /* the opening quote */
    while (*p->at && *p->at != '"') {
        char c = *p->at++;
        if (c == '\\') {
            char e = *p->at++;
            if (e == 'n') c = '\n';
            else if (e == 't') c = '\t';
            else if (e == 'r') c = '\r';
            else if (e == 'b') c = '\b';
            else if (e == 'f') c = '\f';
            else if (e == 'u') { /* ASCII only: the league's messages are ASCII */
                char hex[5] = {0};
                strncpy(hex, p->at, 4);
                p->at += strlen(hex);
                c = (char)strtol(hex, NULL, 16);
            } else c = e;
        }
        if (length + 2 > size) {
            char *bigger = realloc(out, size *= 2);
            if (!bigger) { free(out); return NULL; }
            out = bigger;
        }
        out[length++] = c;
    }
    if (*p->at == '"') p->at++;
    out[length] = '\0';
    return out;
}

static int parse_items(parser *p, kb_json *out, char close, int keyed) {
    size_t size = 8;
    out->items = calloc(size, sizeof *out->items);
    out->keys = keyed ? calloc(size, sizeof *out->keys) : NULL;
    if (!out->items || (keyed && !out->keys)) return -1;
    p->at++;
    skip(p);
    if (*p->at == close) { p->at++; return 0; }
    for (;;) {
        if (out->count == size) {
            size *= 2;
            kb_json *items = realloc(out->items, size * sizeof *items);
            if (!items) return -1;
            out->items = items;
            if (keyed) {
                char **keys = realloc(out->keys, size * sizeof *keys);
                if (!keys) return -1;
                out->keys = keys;
            }
        }
        skip(p);
        if (keyed) {
            if (*p->at != '"') return -1;
            out->keys[out->count] = parse_string(p);
            skip(p);
            if (*p->at++ != ':') return -1;
        }
        memset(&out->items[out->count], 0, sizeof out->items[0]);
        if (parse_value(p, &out->items[out->count]) != 0) return -1;
        out->count++;
        skip(p);
        if (*p->at == ',') { p->at++; continue; }
        if (*p->at == close) { p->at++; return 0; }
        return -1;
    }
}

static int parse_value(parser *p, kb_json *out) {
    skip(p);
    memset(out, 0, sizeof *out);
    switch (*p->at) {
    case '{': out->kind = KB_OBJECT; return parse_items(p, out, '}', 1);
    case '[': out->kind = KB_ARRAY; return parse_items(p, out, ']', 0);
    case '"': out->kind = KB_STRING; out->string = parse_string(p); return out->string ? 0 : -1;
    case 't': out->kind = KB_BOOL; out->number = 1; p->at += 4; return 0;
    case 'f': out->kind = KB_BOOL; p->at += 5; return 0;
    case 'n': out->kind = KB_NULL; p->at += 4; return 0;
    default: {
        char *end;
        out->kind = KB_NUMBER;
        out->number = strtod(p->at, &end);
        if (end == p->at) return -1;
        p->at = end;
        return 0;
    }
    }
}

static void json_free(kb_json *value) {
    free(value->string);
    for (size_t i = 0; i < value->count; i++) {
        if (value->keys) free(value->keys[i]);
        json_free(&value->items[i]);
    }
    free(value->keys);
    free(value->items);
}

const kb_json *kb_get(const kb_json *object, const char *key) {
    if (!object || object->kind != KB_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) return &object->items[i];
    return NULL;
}

static const char *get_string(const kb_json *object, const char *key) {
    const kb_json *value = kb_get(object, key);
    return value && value->kind == KB_STRING ? value->string : NULL;
}

static size_t get_strings(const kb_json *object, const char *key, const char **out) {
    const kb_json *value = kb_get(object, key);
    size_t count = 0;
    if (!value || value->kind != KB_ARRAY) return 0;
    for (size_t i = 0; i < value->count && count < KB_MAX_ITEMS; i++)
        if (value->items[i].kind == KB_STRING) out[count++] = value->items[i].string;
    return count;
}

static void write_quoted(const char *text) {
    putchar('"');
    for (; *text; text++) {
        if (*text == '"' || *text == '\\') printf("\\%c", *text);
        else if ((unsigned char)*text < 0x20) printf("\\u%04x", *text);
        else putchar(*text);
    }
    putchar('"');
}

/* ------------------------------------------------------------------ the loop */

static char *read_line(void) {
    size_t size = 4096, length = 0;
    char *line = malloc(size);
    int c;
    if (!line) return NULL;
    while ((c = getchar()) != EOF && c != '\n') {
        if (length + 1 == size) {
            char *bigger = realloc(line, size *= 2);
            if (!bigger) { free(line); return NULL; }
            line = bigger;
        }
        line[length++] = (char)c;
    }
    if (c == EOF && length == 0) { free(line); return NULL; }
    line[length] = '\0';
    return line;
}

int kb_run(kb_chooser choose) {
    kb_json hello = {0};
    char *line;
    while ((line = read_line()) != NULL) {
        kb_json message;
        parser p = {line};
        if (parse_value(&p, &message) != 0 || message.kind != KB_OBJECT) {
            kb_log("kingbot: a line that is not a JSON object, skipped");
            json_free(&message);
            free(line);
            continue;
        }
        const char *type = get_string(&message, "type");
        if (type && strcmp(type, "hello") == 0) {
            json_free(&hello);
            hello = message;
            fputs("{\"type\":\"ready\"}\n", stdout);
            fflush(stdout);
            free(line);
            continue;
        }
        if (type && strcmp(type, "request") == 0) {
            kb_request request;
            memset(&request, 0, sizeof request);
            const kb_json *id = kb_get(&message, "id");
            const kb_json *seat = kb_get(&hello, "seat");
            const kb_json *time = kb_get(&message, "time");
            const kb_json *move_ms = kb_get(time, "move_ms"), *bank_ms = kb_get(time, "bank_ms");
            request.id = id ? (long)id->number : 0;
            request.seat = seat ? (int)seat->number : 0;
            request.game = get_string(&hello, "game");
            request.view = kb_get(&message, "view");
            request.legal_count = get_strings(&message, "legal", request.legal);
            request.hand_count = get_strings(request.view, "hand", request.hand);
            request.trick_count = get_strings(request.view, "trick", request.trick);
            request.trump = get_string(request.view, "trump");
            request.move_ms = move_ms ? move_ms->number : 0;
            request.bank_ms = bank_ms ? bank_ms->number : 0;
            for (size_t i = 0; i < request.legal_count; i++) {
                const char *card = kb_card_of(request.legal[i]);
                if (card) request.playable[request.playable_count++] = card;
            }
            const char *action = choose(&request);
            int legal = 0;
            for (size_t i = 0; action && i < request.legal_count; i++)
                legal |= strcmp(action, request.legal[i]) == 0;
            printf("{\"id\":%ld,\"action\":", request.id);
            if (legal) {
                write_quoted(action);
            } else {
                kb_log("kingbot: choose() returned no legal action; playing the first legal one");
                write_quoted(request.legal_count ? request.legal[0] : "");
                fputs(",\"fallback\":\"choose() returned no legal action\"", stdout);
            }
            fputs("}\n", stdout);
            fflush(stdout);
        } else if (type && strcmp(type, "end") == 0) {
            json_free(&message);
            free(line);
            break;
        }
        json_free(&message);
        free(line);
    }
    json_free(&hello);
    return 0;
}
