/* The compiled double-dummy solver: the search of engine/double_dummy.py (_Search) in C.
 *
 * It reads the position engine/double_dummy.py builds (_c_arguments) and answers the
 * value of each legal card of the seat to play, from the current trick on, before the
 * points already certain are added: the same numbers as the pure-Python search, which the
 * tests check. Alpha-beta over the remaining cards, MTD(f) per root card, a
 * transposition table at the start of every trick (kept between calls of the same deal
 * constants, see last_signature) whose entries keep only the winning ranks (the top cards
 * of each suit that decided their bounds: see Reads and trick_start), equivalent cards
 * searched once, the stored best card first, bounds on what the remaining cards can add
 * (the outcome still reachable from the trick counts: reach_lo/reach_hi; quick tricks
 * where tricks are worth non-negative points), the last trick played without search.
 *
 * Built with -DVERIFY, every answer the table gives is checked against a search of the
 * same position without the table (`verified()` counts them; tests/engine uses it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#define MAX_SEATS 8
#define MAX_TRICKS 32
#define INF (1 << 29)
#ifndef TT_PROBES
#define TT_PROBES 8
#endif
#ifndef HIST_MODE
#define HIST_MODE 0
#endif

typedef uint64_t mask_t;

#define BIT(c) (((mask_t)1) << (c))
#define SUIT(c) ((c) / 13)

/* The transposition table. A node per position shape: the leader, the trick index and
 * counts (`extra`), how many cards of each suit each hand holds, and the class of every
 * card left by its place among the cards left. A node holds up to NODE_ENTRIES entries,
 * each saying which hand holds each of the top cards of each suit that its bounds
 * depended on (the winning ranks, DDS's name for them), so that positions differing only
 * in lower cards share it. Places are counted among the cards left (bit i: the i-th
 * lowest card left), which matching shapes make the same places in every suit. */
#ifndef NODE_ENTRIES
#define NODE_ENTRIES 128
#endif
#ifndef NODE_BITS
#define NODE_BITS 14
#endif
#define NODE_COUNT (1u << NODE_BITS)
_Static_assert(NODE_ENTRIES <= 255, "a node counts its entries in a byte");

typedef struct {
    mask_t rel;       /* the places kept: the top cards of each suit down to the lowest that counted */
    mask_t holder[3]; /* at those places, bit b of the holding seat's number */
} Pattern;

typedef struct {
    uint64_t shape[2];
    mask_t classes[3];
    mask_t exact; /* where cards are not renamed (too many classes): the cards left */
    int64_t extra;
    uint32_t gen;
    int8_t leader;
    uint8_t count;
    Pattern pattern[NODE_ENTRIES];
    int32_t lower[NODE_ENTRIES], upper[NODE_ENTRIES];
    int8_t best[NODE_ENTRIES];
    uint8_t work[NODE_ENTRIES]; /* log2 of the nodes its search took: the cheapest goes first */
#ifdef VERIFY
    mask_t orig[NODE_ENTRIES][5];
#endif
} Node;

static Node *table_nodes = NULL;
static uint32_t generation = 0;

static void next_generation(void) {
    generation++;
    if (generation == 0) {
        memset(table_nodes, 0, NODE_COUNT * sizeof(Node));
        generation = 1;
    }
}

typedef struct {
    uint64_t shape[2];
    mask_t classes[3];
    mask_t exact;
    int64_t extra;
    int leader;
    uint64_t hash;
} NodeKey;

static int node_is(const Node *node, const NodeKey *k) {
    return node->gen == generation && node->leader == k->leader && node->extra == k->extra &&
           node->shape[0] == k->shape[0] && node->shape[1] == k->shape[1] &&
           node->classes[0] == k->classes[0] && node->classes[1] == k->classes[1] &&
           node->classes[2] == k->classes[2] && node->exact == k->exact;
}

/* The node of a key, or NULL; with `create`, a new empty one where none is (a stale slot
 * of its window, else the window's node with the fewest entries, which are dropped). */
static Node *find_node(const NodeKey *k, int create) {
    Node *free_slot = NULL;
    for (int probe = 0; probe < TT_PROBES; probe++) {
        Node *node = &table_nodes[(k->hash + (uint64_t)probe) & (NODE_COUNT - 1)];
        if (node_is(node, k)) return node;
        if (node->gen != generation) {
            if (!free_slot || free_slot->gen == generation) free_slot = node;
        } else if (!free_slot || (free_slot->gen == generation && node->count < free_slot->count)) {
            free_slot = node;
        }
    }
    if (!create) return NULL;
    Node *node = free_slot;
    node->gen = generation;
    node->leader = (int8_t)k->leader;
    node->extra = k->extra;
    node->shape[0] = k->shape[0];
    node->shape[1] = k->shape[1];
    memcpy(node->classes, k->classes, sizeof(node->classes));
    node->exact = k->exact;
    node->count = 0;
    return node;
}

/* The transposition table is kept from one call to the next while the deal's constants
 * (everything but the hands, the trick and the history) stay the same, as between the
 * sampled deals of one decision and the decisions of one deal: its keys say everything
 * else a value depends on (the hands renamed by relative rank, the leader, the trick
 * index, the capped counts, the suits led where a rule reads them, whether a banned suit
 * was broken). Any other call, and any call after one that gave up, empties it. */
static uint64_t last_signature = 0;
static int table_valid = 0;
static long long last_node_count = 0;
static long long node_limit = 0; /* 0: none; else the search gives up beyond it */
static int gave_up = 0;
#ifdef VERIFY
#include <stdio.h>
static int verifying = 0;
static long long verify_checks = 0, verify_failures = 0;
#define VERIFYING verifying
#else
#define VERIFYING 0
#endif

typedef struct {
    int n;
    int left_of[MAX_SEATS];
    mask_t hands[MAX_SEATS];
    int trump;
    int tricks_total;
    mask_t played_root, held_root;
    /* rules */
    int lead_ban_suit, lead_ban_until_broken, forced_card, forced_on_void;
    int forced_when_beaten_by, forced_on_first_lead;
    mask_t follow_penalty;
    int beat_trump_lead, trump_rules, must_trump, must_overtrump, undertrump;
    mask_t discard_penalty;
    int side_mask, scorer_mask;
    int card_points[52];
    int card_marks[52];
    mask_t marked; /* the cards with points or rule marks: their holders always count */
    int class_id[52];
    mask_t class_bits[3]; /* bit b of each card's class */
    int normalize;
    /* quick tricks apply: no card points, no outcome table, no negative trick points */
    int quick;
    int trick_points[MAX_TRICKS];
    int trick_hi[MAX_TRICKS + 1], trick_lo[MAX_TRICKS + 1];
    int counters[MAX_SEATS];
    int ncaps, caps[MAX_SEATS], radix[MAX_SEATS];
    int *table;
    int table_len, table_min, table_max;
    /* reach_lo/hi[r * table_len + i]: the least and greatest outcome reachable from the
     * count vector i with at most r more tricks counted (NULL: the table is too large,
     * then table_min and table_max bound it) */
    int *reach_lo, *reach_hi;
    int trick[MAX_SEATS];
    long long nodes;
    /* the history heuristic: how often (weighted by the tricks left) each seat's card
     * cut the search off; a move-ordering hint, never a value. Off by default
     * (HIST_MODE 0): measured, it saved nodes in some families with 10 tricks left and
     * cost as many elsewhere and with 7 left (docs/benchmarks.md) */
    long long history[MAX_SEATS][52];
} Ctx;

static const mask_t SUIT_MASK[4] = {
    0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

static int beats(int card, int win_card, int trump) {
    int suit = SUIT(card), win_suit = SUIT(win_card);
    if (suit == win_suit) return card > win_card;
    return suit == trump;
}

/* The legal cards of `hand`; *rank_used is set where the answer compared ranks with the
 * trick's winning card (the rules that ask for a higher or a lower card). */
static mask_t legal_mask(const Ctx *x, mask_t hand, int led, int win_card, mask_t played,
                         int suits_led, int *rank_used) {
    if (led < 0) {
        if (x->lead_ban_suit >= 0) {
            mask_t banned = SUIT_MASK[x->lead_ban_suit];
            mask_t other = hand & ~banned;
            if (other && other != hand && !(x->lead_ban_until_broken && (played & banned)))
                return other;
        }
        return hand;
    }
    mask_t same = hand & SUIT_MASK[led];
    int forced = x->forced_card;
    int holds_forced = forced >= 0 && ((hand >> forced) & 1);
    if (same) {
        if (holds_forced && SUIT(forced) == led && same != BIT(forced)) {
            if (win_card == x->forced_when_beaten_by) return BIT(forced);
            if (x->forced_on_first_lead && !((suits_led >> led) & 1)) return BIT(forced);
        }
        if (x->follow_penalty) {
            *rank_used = 1;
            mask_t safe = same & x->follow_penalty & (BIT(win_card) - 1);
            if (safe && safe != same) return safe;
        }
        if (x->beat_trump_lead && led == x->trump) {
            *rank_used = 1;
            mask_t higher = same & ~((BIT(win_card) << 1) - 1);
            if (higher && higher != same) return higher;
        }
        return same;
    }
    if (holds_forced && x->forced_on_void && hand != BIT(forced)) return BIT(forced);
    if (x->trump_rules && x->trump >= 0) {
        mask_t trumps = hand & SUIT_MASK[x->trump];
        if (!trumps) return hand;
        if (SUIT(win_card) == x->trump && x->trump != led) {
            if (x->must_overtrump) {
                *rank_used = 1;
                mask_t higher = trumps & ~((BIT(win_card) << 1) - 1);
                if (higher) return higher;
            }
            if (x->undertrump == 1) return trumps;
            if (x->undertrump == 2) {
                mask_t other = hand & ~trumps;
                return other ? other : hand;
            }
            return hand;
        }
        return x->must_trump ? trumps : hand;
    }
    if (x->discard_penalty) {
        mask_t penalty = hand & x->discard_penalty;
        if (penalty && penalty != hand) return penalty;
    }
    return hand;
}

/* The legal cards in groups of equivalent cards: one representative (the highest) per
 * group in reps, the group's cards in groups; returns the number of groups. */
static int make_groups(const Ctx *x, int seat, mask_t legal, int trick_len, int *reps,
                       mask_t *groups) {
    mask_t others = 0;
    for (int s = 0; s < x->n; s++)
        if (s != seat) others |= x->hands[s];
    for (int i = 0; i < trick_len; i++) others |= BIT(x->trick[i]);
    mask_t own = x->hands[seat];
    int count = 0;
    for (int suit = 0; suit < 4; suit++) {
        if (!(legal & SUIT_MASK[suit])) continue;
        /* the legal cards of the suit from the highest down: a new group where a card
         * of another hand, the trick or an illegal card of this hand lies between two
         * legal cards, or where the class changes */
        mask_t blockers = (others | (own & ~legal)) & SUIT_MASK[suit];
        mask_t rest = legal & SUIT_MASK[suit];
        int current = -1, prev = -1;
        mask_t members = 0;
        while (rest) {
            int c = 63 - __builtin_clzll(rest);
            rest &= ~BIT(c);
            if (current >= 0 &&
                ((blockers & (BIT(prev) - 1) & ~((BIT(c) << 1) - 1)) ||
                 x->card_points[c] != x->card_points[current] ||
                 x->card_marks[c] != x->card_marks[current])) {
                reps[count] = current;
                groups[count++] = members;
                current = -1;
                members = 0;
            }
            if (current < 0) current = c;
            members |= BIT(c);
            prev = c;
        }
        if (current >= 0) {
            reps[count] = current;
            groups[count++] = members;
        }
    }
    return count;
}

/* Cards likely to be best first: the trick's points as they would stand after the card
 * (to the solver's side or not), then the cheapest card that wins, the highest that does
 * not. Only the order of the search changes, never a value. */
static void order_moves(const Ctx *x, int seat, int maximize, int trick_len, int win_card,
                        int win_seat, int index, int *reps, mask_t *groups, int count) {
    int points = x->trick_points[index];
    for (int i = 0; i < trick_len; i++) points += x->card_points[x->trick[i]];
    long long keys[52];
    for (int i = 0; i < count; i++) {
        int c = reps[i];
        int wins = win_card < 0 || beats(c, win_card, x->trump);
        int winner = wins ? seat : win_seat;
        int worth = points + x->card_points[c];
        int to_solver = ((x->scorer_mask >> winner) & 1) ? worth : 0;
        long long mine = maximize ? to_solver : -to_solver;
        int rank = c % 13;
        long long tie = wins ? (13 - rank) : rank;
        /* a trick worth points to whoever takes it is wanted by both sides: the cheapest
         * winner, else the lowest card (measured: Priffe 1.7x, Dubbelkingen 1.3x fewer
         * nodes with 10 tricks left; the highest card when winning an unwanted trick anyway
         * cost King 1.3x more, so not that) */
        if (worth > 0) tie = 13 - rank;
        if (win_card < 0) tie = worth < 0 ? (13 - rank) : rank; /* a lead */
        long long hist = x->history[seat][c];
        if (hist > (1LL << 30)) hist = 1LL << 30;
#if HIST_MODE == 1
        keys[i] = mine * (1LL << 40) + hist * 64 + tie;
#elif HIST_MODE == 2
        keys[i] = mine * (1LL << 40) + tie * (1LL << 32) + hist;
#else
        (void)hist;
        keys[i] = mine * 64 + tie;
#endif
    }
    for (int i = 1; i < count; i++) { /* insertion sort, highest key first */
        long long k = keys[i];
        int r = reps[i];
        mask_t g = groups[i];
        int j = i - 1;
        while (j >= 0 && keys[j] < k) {
            keys[j + 1] = keys[j];
            reps[j + 1] = reps[j];
            groups[j + 1] = groups[j];
            j--;
        }
        keys[j + 1] = k;
        reps[j + 1] = r;
        groups[j + 1] = g;
    }
}

/* The key's places, compiled twice (engine/_dds_places.h): for processors with BMI2 and
 * POPCNT and for any other; `fast_cpu` chooses at run time. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("bmi2,popcnt")
#include <immintrin.h>
#define PLACES_SUFFIX fast
#include "_dds_places.h"
#undef PLACES_SUFFIX
#pragma GCC pop_options
#endif
#define PLACES_SUFFIX plain
#include "_dds_places.h"
#undef PLACES_SUFFIX

static int fast_cpu = 0;

static inline mask_t pack_bits(mask_t value, mask_t mask) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (fast_cpu) return pack_bits_fast(value, mask);
#endif
    return pack_bits_plain(value, mask);
}

static inline mask_t unpack_bits(mask_t packed, mask_t mask) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (fast_cpu) return unpack_bits_fast(packed, mask);
#endif
    return unpack_bits_plain(packed, mask);
}

static inline void key_of(const Ctx *x, mask_t left, NodeKey *k, mask_t holder[3]) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (fast_cpu) {
        key_of_fast(x, left, k, holder);
        return;
    }
#endif
    key_of_plain(x, left, k, holder);
}

static int count_of(const Ctx *x, int index, int k) {
    return (index / x->radix[k]) % (x->caps[k] + 1);
}

/* What a value read of the ranks, gathered while a trick is searched: the cards whose
 * ranks decided it, and the spans of the groups of equivalent cards searched once (each
 * from its lowest card to its highest): if a group's highest card is kept in a table
 * entry, its lowest must be too, or a position where another hand holds a card between
 * them would match. */
typedef struct {
    mask_t ranks;
    mask_t spans;
} Reads;

static int search(Ctx *x, int seat, int trick_len, int win_card, int win_seat, int leader,
                  int index, int count_idx, int suits_led, int alpha, int beta,
                  int best_first, int *best_out, Reads *reads);

static int trick_start(Ctx *x, int leader, int index, int count_idx, int suits_led, int alpha,
                       int beta, mask_t *rel);

/* The trick's winning card where it beat another card of its suit: then its rank decided
 * who won, else (the only card of its suit) it did not. */
static mask_t rank_winner(const Ctx *x, int win_card) {
    int suit = SUIT(win_card);
    for (int i = 0; i < x->n; i++)
        if (x->trick[i] != win_card && SUIT(x->trick[i]) == suit) return BIT(win_card);
    return 0;
}

/* Play `card`; `reads` gets what the value read of the ranks (zeroed by the caller). */
static int play(Ctx *x, int seat, int card, int trick_len, int win_card, int win_seat,
                int leader, int index, int count_idx, int suits_led, int alpha, int beta,
                Reads *reads) {
    int value;
    x->hands[seat] ^= BIT(card);
    x->trick[trick_len] = card;
    if (win_card < 0 || beats(card, win_card, x->trump)) {
        win_card = card;
        win_seat = seat;
    }
    if (trick_len + 1 < x->n) {
        value = search(x, x->left_of[seat], trick_len + 1, win_card, win_seat, leader, index,
                       count_idx, suits_led, alpha, beta, -1, NULL, reads);
    } else {
        int gain = 0;
        if ((x->scorer_mask >> win_seat) & 1) {
            for (int i = 0; i < x->n; i++) gain += x->card_points[x->trick[i]];
            gain += x->trick_points[index];
        }
        int counter = x->counters[win_seat];
        int new_idx = count_idx;
        if (counter >= 0 && count_of(x, count_idx, counter) < x->caps[counter])
            new_idx += x->radix[counter];
        int led = suits_led | (1 << SUIT(x->trick[0]));
        int saved[MAX_SEATS]; /* the next tricks reuse x->trick */
        memcpy(saved, x->trick, sizeof(int) * (size_t)x->n);
        mask_t won = rank_winner(x, win_card);
        mask_t ranks = 0;
        value = gain + trick_start(x, win_seat, index + 1, new_idx, led, alpha - gain,
                                   beta - gain, &ranks);
        reads->ranks |= ranks | won;
        memcpy(x->trick, saved, sizeof(int) * (size_t)x->n);
    }
    x->hands[seat] ^= BIT(card);
    return value;
}

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static int trick_start(Ctx *x, int leader, int index, int count_idx, int suits_led, int alpha,
                       int beta, mask_t *rel) {
    mask_t left = 0;
    int last = 1; /* every hand holds one card: the last trick plays itself */
    *rel = 0;
    for (int s = 0; s < x->n; s++) {
        left |= x->hands[s];
        if (!x->hands[s] || (x->hands[s] & (x->hands[s] - 1))) last = 0;
    }
    if (index == x->tricks_total || !left) return x->table[count_idx];
    if (last) {
        x->nodes++;
        int seat = leader, win_card = -1, win_seat = -1, gain = 0;
        for (int i = 0; i < x->n; i++) {
            int c = __builtin_ctzll(x->hands[seat]);
            x->trick[i] = c;
            if (win_card < 0 || beats(c, win_card, x->trump)) {
                win_card = c;
                win_seat = seat;
            }
            gain += x->card_points[c];
            seat = x->left_of[seat];
        }
        *rel = rank_winner(x, win_card);
        if (!((x->scorer_mask >> win_seat) & 1)) gain = 0;
        else gain += x->trick_points[index];
        int counter = x->counters[win_seat];
        if (counter >= 0 && count_of(x, count_idx, counter) < x->caps[counter])
            count_idx += x->radix[counter];
        return gain + x->table[count_idx];
    }
    int hi, lo;
    if (x->reach_lo) {
        int at = (x->tricks_total - index) * x->table_len + count_idx;
        hi = x->trick_hi[index] + x->reach_hi[at];
        lo = x->trick_lo[index] + x->reach_lo[at];
    } else {
        hi = x->trick_hi[index] + x->table_max;
        lo = x->trick_lo[index] + x->table_min;
    }
    mask_t rest = left;
    while (rest) {
        int c = __builtin_ctzll(rest);
        rest &= rest - 1;
        int points = x->card_points[c];
        if (points > 0)
            hi += points;
        else
            lo += points;
    }
    /* these bounds read the counts and which cards with points are left, not ranks */
    if (lo >= beta || lo == hi) return lo;
    if (hi <= alpha) return hi;
    if (x->quick) {
        /* Quick tricks: the leader's top cards in a suit (the highest cards of the suit
         * still held, all in its hand) win one trick each when led one after another if
         * nobody else can trump them (no trumps, the suit is trumps, or no other hand
         * holds a trump): the leader can take that many tricks now, whatever the others
         * play. A trick is worth only its (non-negative) trick points here, so the
         * leader's side gets at least those tricks' points, or, for the other side,
         * the scorer's side at most the points of the tricks after them. More top cards
         * only make either bound stronger, so the counted cards are the winning ranks. */
        int in_scorer = (x->scorer_mask >> leader) & 1, in_side = (x->side_mask >> leader) & 1;
        if (in_scorer == in_side) {
            mask_t own = x->hands[leader];
            int others_trump = 0;
            if (x->trump >= 0)
                others_trump = ((left & ~own) & SUIT_MASK[x->trump]) != 0;
            int k = 0;
            mask_t counted = 0;
            for (int suit = 0; suit < 4; suit++) {
                if (suit == x->lead_ban_suit) continue;
                if (others_trump && suit != x->trump) continue;
                mask_t rem = left & SUIT_MASK[suit];
                while (rem) {
                    int c = 63 - __builtin_clzll(rem);
                    if (!((own >> c) & 1)) break;
                    k++;
                    counted |= BIT(c);
                    rem &= ~BIT(c);
                }
            }
            if (k) {
                int end = index + k;
                if (end > x->tricks_total) end = x->tricks_total;
                if (in_side) {
                    int sure = x->trick_lo[end]; /* 0: no negative trick points */
                    for (int i = index; i < end; i++) sure += x->trick_points[i];
                    if (sure >= beta) {
                        *rel = counted;
                        return sure;
                    }
                } else {
                    int most = x->trick_hi[end];
                    if (most <= alpha) {
                        *rel = counted;
                        return most;
                    }
                }
            }
        }
    }
    int64_t extra = ((int64_t)count_idx * 16 + (x->forced_on_first_lead ? suits_led : 0)) * 64 + index;
    if (x->lead_ban_until_broken && x->lead_ban_suit >= 0) {
        mask_t played = x->played_root | (x->held_root & ~left);
        if (played & SUIT_MASK[x->lead_ban_suit]) extra |= (int64_t)1 << 40;
    }
    /* The key: the hands with the cards renamed by their places among the cards left,
     * and the class of each card left (its points and rule marks): cards played earlier
     * matter only through that order. An entry keeps only the places its bounds depended
     * on; its node, the hands' lengths in each suit. */
    NodeKey k;
    mask_t holder[3];
    key_of(x, left, &k, holder);
    k.leader = leader;
    k.extra = extra;
    uint64_t h = (uint64_t)leader * 0x9E3779B97F4A7C15ULL ^ (uint64_t)extra * 0x632BE59BD9B4E019ULL;
    h = mix(h ^ k.shape[0]);
    h = mix(h ^ k.shape[1] ^ k.exact);
    h = mix(h ^ k.classes[0] ^ (k.classes[1] << 1) ^ (k.classes[2] << 2));
    k.hash = h;
    int best_first = -1;
    int old_lower = -INF, old_upper = INF;
    mask_t lower_rel = 0, upper_rel = 0; /* the places of the entries giving them */
#ifdef VERIFY
    mask_t lower_orig[5] = {0};
#endif
    Node *node = VERIFYING ? NULL : find_node(&k, 0);
    for (int i = node ? node->count - 1 : -1; i >= 0; i--) {
        const Pattern *e = &node->pattern[i];
        if ((holder[0] & e->rel) != e->holder[0] || (holder[1] & e->rel) != e->holder[1] ||
            (holder[2] & e->rel) != e->holder[2])
            continue;
        if (node->lower[i] > old_lower) {
            old_lower = node->lower[i];
            lower_rel = e->rel;
#ifdef VERIFY
            memcpy(lower_orig, node->orig[i], sizeof(lower_orig));
#endif
        }
        if (node->upper[i] < old_upper) {
            old_upper = node->upper[i];
            upper_rel = e->rel;
        }
        if (best_first < 0) best_first = node->best[i];
        if (old_lower >= beta || old_upper <= alpha || old_lower == old_upper) break;
    }
#ifdef VERIFY
    if (!verifying && (old_lower >= beta || old_upper <= alpha)) {
        verifying = 1;
        Reads dummy = {0, 0};
        int best_dummy;
        int truth = search(x, leader, 0, -1, -1, leader, index, count_idx, suits_led, -INF, INF, -1, &best_dummy, &dummy);
        verifying = 0;
        verify_checks++;
        if ((old_lower >= beta && truth < old_lower) || (old_upper <= alpha && truth > old_upper)) {
            verify_failures++;
            fprintf(stderr, "BAD hit: truth %d lower %d upper %d index %d leader %d\n", truth, old_lower, old_upper, index, leader);
            for (int s = 0; s < x->n; s++) fprintf(stderr, "  hand %d %llx orig %llx\n", s, (unsigned long long)x->hands[s], (unsigned long long)lower_orig[s]);
            fprintf(stderr, "  lower_rel %llx upper_rel %llx\n", (unsigned long long)lower_rel, (unsigned long long)upper_rel);
        }
    }
#endif
    mask_t places = x->normalize ? 0 : ~(mask_t)0; /* exact keys: every card counts */
    if (old_lower >= beta) {
        *rel = unpack_bits(lower_rel | places, left);
        return old_lower;
    }
    if (old_upper <= alpha) {
        *rel = unpack_bits(upper_rel | places, left);
        return old_upper;
    }
    if (old_lower == old_upper) {
        *rel = unpack_bits(lower_rel | upper_rel | places, left);
        return old_lower;
    }
    if (old_lower > alpha) alpha = old_lower;
    if (old_upper < beta) beta = old_upper;
    int best = -1;
    long long nodes_before = x->nodes;
    Reads found = {0, 0};
    int value = search(x, leader, 0, -1, -1, leader, index, count_idx, suits_led, alpha, beta,
                       best_first, &best, &found);
    /* The cards the bounds depend on: those whose ranks the search read, those of the
     * entries that narrowed its window, and every card with points or rule marks; then
     * in each suit every card above the lowest of them (and below it down a group of
     * equivalent cards searched once that it splits). */
    mask_t cards = found.ranks | unpack_bits(lower_rel | upper_rel, left) | (x->marked & left);
    mask_t closed = left;
    if (x->normalize) {
        closed = 0;
        for (int suit = 0; suit < 4; suit++) {
            mask_t in_suit = cards & SUIT_MASK[suit];
            if (!in_suit) continue;
            int low = __builtin_ctzll(in_suit);
            while (low > suit * 13 && ((found.spans >> (low - 1)) & 3) == 3) low--;
            closed |= left & SUIT_MASK[suit] & ~(BIT(low) - 1);
        }
    }
    *rel = closed;
    if (gave_up || VERIFYING) return value;
    int lower, upper;
    if (value <= alpha) {
        lower = old_lower;
        upper = value < old_upper ? value : old_upper;
    } else if (value >= beta) {
        lower = value > old_lower ? value : old_lower;
        upper = old_upper;
    } else {
        lower = upper = value;
    }
    Pattern pattern;
    pattern.rel = x->normalize ? pack_bits(closed, left) : ~(mask_t)0;
    for (int b = 0; b < 3; b++) pattern.holder[b] = holder[b] & pattern.rel;
    long long spent = x->nodes - nodes_before;
    int work = spent > 0 ? 64 - __builtin_clzll((unsigned long long)spent) : 0;
    node = find_node(&k, 1);
    int at = -1;
    for (int i = 0; i < node->count; i++)
        if (memcmp(&node->pattern[i], &pattern, sizeof(pattern)) == 0) {
            at = i;
            break;
        }
    if (at < 0 && node->count < NODE_ENTRIES) at = node->count++;
    if (at < 0) { /* full: the entry whose search was cheapest goes */
        at = 0;
        for (int i = 1; i < NODE_ENTRIES; i++)
            if (node->work[i] < node->work[at]) at = i;
    }
    node->pattern[at] = pattern;
    node->lower[at] = lower;
    node->upper[at] = upper;
    node->best[at] = (int8_t)best;
    node->work[at] = (uint8_t)work;
#ifdef VERIFY
    memcpy(node->orig[at], x->hands, sizeof(node->orig[at]));
#endif
    return value;
}

static int search(Ctx *x, int seat, int trick_len, int win_card, int win_seat, int leader,
                  int index, int count_idx, int suits_led, int alpha, int beta,
                  int best_first, int *best_out, Reads *reads) {
    x->nodes++;
    if (node_limit && x->nodes > node_limit) {
        gave_up = 1;
        return 0; /* every value from here on is thrown away */
    }
    int led = trick_len ? SUIT(x->trick[0]) : -1;
    mask_t played = x->played_root;
    if (led < 0 && x->lead_ban_until_broken) { /* only this rule reads the played cards */
        mask_t held = 0;
        for (int s = 0; s < x->n; s++) held |= x->hands[s];
        played |= x->held_root & ~held;
    }
    int rank_used = 0;
    mask_t legal = legal_mask(x, x->hands[seat], led, win_card, played, suits_led, &rank_used);
    mask_t found = rank_used ? BIT(win_card) : 0, spans = 0;
    int reps[52];
    mask_t groups[52];
    int count = make_groups(x, seat, legal, trick_len, reps, groups);
    int maximize = (x->side_mask >> seat) & 1;
    if (count > 1) order_moves(x, seat, maximize, trick_len, win_card, win_seat, index, reps,
                               groups, count);
    if (best_first >= 0) {
        for (int i = 0; i < count; i++) {
            if ((groups[i] >> best_first) & 1) {
                int r = reps[i];
                mask_t g = groups[i];
                for (int j = i; j > 0; j--) {
                    reps[j] = reps[j - 1];
                    groups[j] = groups[j - 1];
                }
                reps[0] = r;
                groups[0] = g;
                break;
            }
        }
    }
    int best_value = maximize ? -INF : INF;
    int best_card = -1;
    for (int i = 0; i < count; i++) {
        Reads child = {0, 0};
        int value = play(x, seat, reps[i], trick_len, win_card, win_seat, leader, index,
                         count_idx, suits_led, alpha, beta, &child);
        found |= child.ranks;
        spans |= child.spans;
        mask_t group = groups[i];
        if (group & (group - 1)) spans |= (BIT(reps[i]) << 1) - (group & -group);
        if (maximize) {
            if (value > best_value) {
                best_value = value;
                best_card = reps[i];
                if (value > alpha) alpha = value;
            }
        } else if (value < best_value) {
            best_value = value;
            best_card = reps[i];
            if (value < beta) beta = value;
        }
        if (alpha >= beta) {
            int depth = x->tricks_total - index;
            x->history[seat][reps[i]] += depth * depth;
            break;
        }
    }
    if (best_out) *best_out = best_card;
    reads->ranks |= found;
    reads->spans |= spans;
    return best_value;
}

/* --- reading the arguments ---------------------------------------------------------- */

static int read_ints(PyObject *seq, long long *out, int limit, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > limit) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: too many values", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static PyObject *dds_solve(PyObject *self, PyObject *args) {
    PyObject *arg;
    long long limit = 0;
    if (!PyArg_ParseTuple(args, "O|L", &arg, &limit)) return NULL;
    node_limit = limit > 0 ? limit : 0;
    gave_up = 0;
    int n, trump, leader, trick_index, tricks_total, suits_led, side_mask, scorer_mask;
    unsigned long long played;
    PyObject *left_of, *hands, *trick, *rules, *card_points, *trick_points, *counters, *caps,
        *counts, *table;
    if (!PyArg_ParseTuple(arg, "iOOiiOiiKiOiiOOOOOO", &n, &left_of, &hands, &trump, &leader,
                          &trick, &trick_index, &tricks_total, &played, &suits_led, &rules,
                          &side_mask, &scorer_mask, &card_points, &trick_points, &counters,
                          &caps, &counts, &table))
        return NULL;
    if (n < 2 || n > 5 || tricks_total > MAX_TRICKS) {
        PyErr_SetString(PyExc_ValueError, "unsupported table size");
        return NULL;
    }
    if (!table_nodes) {
        table_nodes = (Node *)calloc(NODE_COUNT, sizeof(Node));
        if (!table_nodes) return PyErr_NoMemory();
    }
    Ctx *x = (Ctx *)calloc(1, sizeof(Ctx));
    if (!x) return PyErr_NoMemory();
    long long buf[1024];
    PyObject *result = NULL;
    int k;
    x->n = n;
    x->trump = trump;
    x->tricks_total = tricks_total;
    x->played_root = played;
    if (read_ints(left_of, buf, MAX_SEATS, "left_of") != n) goto fail;
    for (int i = 0; i < n; i++) x->left_of[i] = (int)buf[i];
    if (read_ints(hands, buf, MAX_SEATS, "hands") != n) goto fail;
    for (int i = 0; i < n; i++) {
        x->hands[i] = (mask_t)buf[i];
        x->held_root |= x->hands[i];
    }
    int trick_len = read_ints(trick, buf, MAX_SEATS, "trick");
    if (trick_len < 0 || trick_len >= n) goto fail;
    for (int i = 0; i < trick_len; i++) x->trick[i] = (int)buf[i];
    if (read_ints(rules, buf, 13, "rules") != 13) goto fail;
    x->lead_ban_suit = (int)buf[0];
    x->lead_ban_until_broken = (int)buf[1];
    x->forced_card = (int)buf[2];
    x->forced_on_void = (int)buf[3];
    x->forced_when_beaten_by = (int)buf[4];
    x->forced_on_first_lead = (int)buf[5];
    x->follow_penalty = (mask_t)buf[6];
    x->beat_trump_lead = (int)buf[7];
    x->trump_rules = (int)buf[8];
    x->must_trump = (int)buf[9];
    x->must_overtrump = (int)buf[10];
    x->undertrump = (int)buf[11];
    x->discard_penalty = (mask_t)buf[12];
    x->side_mask = side_mask;
    x->scorer_mask = scorer_mask;
    if (read_ints(card_points, buf, 52, "card_points") != 52) goto fail;
    for (int c = 0; c < 52; c++) x->card_points[c] = (int)buf[c];
    for (int c = 0; c < 52; c++) {
        int marks = 0;
        if ((x->follow_penalty >> c) & 1) marks |= 1;
        if ((x->discard_penalty >> c) & 1) marks |= 2;
        if (c == x->forced_card) marks |= 4;
        if (c == x->forced_when_beaten_by) marks |= 8;
        x->card_marks[c] = marks;
        if (marks || x->card_points[c]) x->marked |= BIT(c);
    }
    {
        int distinct = 0, points[52], marks[52];
        x->normalize = 1;
        for (int c = 0; c < 52; c++) {
            int found = -1;
            for (int i = 0; i < distinct; i++)
                if (points[i] == x->card_points[c] && marks[i] == x->card_marks[c]) found = i;
            if (found < 0) {
                found = distinct++;
                points[found] = x->card_points[c];
                marks[found] = x->card_marks[c];
            }
            x->class_id[c] = found;
            for (int b = 0; b < 3; b++)
                if ((found >> b) & 1) x->class_bits[b] |= BIT(c);
        }
        if (distinct > 8) x->normalize = 0; /* three bits of class per card: else exact hands */
    }
    if (read_ints(trick_points, buf, MAX_TRICKS, "trick_points") != tricks_total) goto fail;
    for (int i = 0; i < tricks_total; i++) x->trick_points[i] = (int)buf[i];
    x->trick_hi[tricks_total] = x->trick_lo[tricks_total] = 0;
    for (int i = tricks_total - 1; i >= 0; i--) {
        x->trick_hi[i] = x->trick_hi[i + 1] + (x->trick_points[i] > 0 ? x->trick_points[i] : 0);
        x->trick_lo[i] = x->trick_lo[i + 1] + (x->trick_points[i] < 0 ? x->trick_points[i] : 0);
    }
    if (read_ints(counters, buf, MAX_SEATS, "counters") != n) goto fail;
    for (int i = 0; i < n; i++) x->counters[i] = (int)buf[i];
    k = read_ints(caps, buf, MAX_SEATS, "caps");
    if (k < 0) goto fail;
    x->ncaps = k;
    int step = 1;
    for (int i = 0; i < k; i++) {
        x->caps[i] = (int)buf[i];
        x->radix[i] = step;
        step *= x->caps[i] + 1;
    }
    if (step > (1 << 26) / 16) {
        PyErr_SetString(PyExc_ValueError, "too many trick counts");
        goto fail;
    }
    if (read_ints(counts, buf, MAX_SEATS, "counts") != k) goto fail;
    int count_idx = 0;
    for (int i = 0; i < k; i++) count_idx += (int)buf[i] * x->radix[i];
    {
        PyObject *fast = PySequence_Fast(table, "table");
        if (!fast) goto fail;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
        if (len != step) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "table: wrong size");
            goto fail;
        }
        x->table = (int *)malloc(sizeof(int) * (size_t)len);
        if (!x->table) {
            Py_DECREF(fast);
            PyErr_NoMemory();
            goto fail;
        }
        x->table_len = (int)len;
        for (Py_ssize_t i = 0; i < len; i++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(fast);
                goto fail;
            }
            x->table[i] = (int)v;
            if (i == 0 || v < x->table_min) x->table_min = (int)v;
            if (i == 0 || v > x->table_max) x->table_max = (int)v;
        }
        Py_DECREF(fast);
    }
    x->quick = x->ncaps == 0;
    for (int c = 0; c < 52; c++)
        if (x->card_points[c]) x->quick = 0;
    for (int i = 0; i < tricks_total; i++)
        if (x->trick_points[i] < 0) x->quick = 0;
#ifdef NO_QUICK
    x->quick = 0;
#endif
    if (x->ncaps && (long long)x->table_len * (tricks_total + 1) <= (1 << 22)) {
        size_t size = (size_t)x->table_len * (size_t)(tricks_total + 1);
        x->reach_lo = (int *)malloc(sizeof(int) * size);
        x->reach_hi = (int *)malloc(sizeof(int) * size);
        if (!x->reach_lo || !x->reach_hi) {
            PyErr_NoMemory();
            goto fail;
        }
        int len = x->table_len;
        for (int i = 0; i < len; i++) x->reach_lo[i] = x->reach_hi[i] = x->table[i];
        for (int r = 1; r <= tricks_total; r++) {
            int *lo = x->reach_lo + r * len, *hi = x->reach_hi + r * len;
            const int *plo = lo - len, *phi = hi - len;
            for (int i = 0; i < len; i++) {
                int a = plo[i], b = phi[i];
                for (int k = 0; k < x->ncaps; k++) {
                    if (count_of(x, i, k) < x->caps[k]) {
                        int j = i + x->radix[k];
                        if (plo[j] < a) a = plo[j];
                        if (phi[j] > b) b = phi[j];
                    }
                }
                lo[i] = a;
                hi[i] = b;
            }
        }
    }
    {
        uint64_t sig = mix(0x5851F42D4C957F2DULL ^ (uint64_t)n);
#define SIG(v) sig = mix(sig ^ (uint64_t)(int64_t)(v))
        for (int i = 0; i < n; i++) SIG(x->left_of[i]), SIG(x->counters[i]);
        SIG(trump), SIG(tricks_total), SIG(side_mask), SIG(scorer_mask);
        SIG(x->lead_ban_suit), SIG(x->lead_ban_until_broken), SIG(x->forced_card);
        SIG(x->forced_on_void), SIG(x->forced_when_beaten_by), SIG(x->forced_on_first_lead);
        SIG(x->follow_penalty), SIG(x->beat_trump_lead), SIG(x->trump_rules);
        SIG(x->must_trump), SIG(x->must_overtrump), SIG(x->undertrump);
        SIG(x->discard_penalty);
        for (int c = 0; c < 52; c++) SIG(x->card_points[c]);
        for (int i = 0; i < tricks_total; i++) SIG(x->trick_points[i]);
        SIG(x->ncaps);
        for (int i = 0; i < x->ncaps; i++) SIG(x->caps[i]);
        for (int i = 0; i < x->table_len; i++) SIG(x->table[i]);
#undef SIG
        if (!table_valid || sig != last_signature) {
            next_generation();
        }
        last_signature = sig;
        table_valid = 1;
    }
    /* the root: the trick so far, then each group of legal cards with a full window */
    int seat = leader, win_card = -1, win_seat = -1;
    for (int i = 0; i < trick_len; i++) {
        if (win_card < 0 || beats(x->trick[i], win_card, trump)) {
            win_card = x->trick[i];
            win_seat = seat;
        }
        seat = x->left_of[seat];
    }
    {
        int led = trick_len ? SUIT(x->trick[0]) : -1;
        int rank_used = 0;
        mask_t legal = legal_mask(x, x->hands[seat], led, win_card, x->played_root, suits_led,
                                  &rank_used);
        int reps[52];
        mask_t groups[52];
        int count = make_groups(x, seat, legal, trick_len, reps, groups);
        result = PyList_New(0);
        if (!result) goto fail;
        int guess = 0;
        for (int i = 0; i < count; i++) {
            /* the GIL stays held: the transposition table is shared by every call */
            /* MTD(f): null-window searches converging on the exact value, each one
             * cheap and leaving bounds in the table for the next */
            int lower = -INF, upper = INF, value = guess;
            while (lower < upper) {
                int beta = value == lower ? value + 1 : value;
                Reads found = {0, 0};
                value = play(x, seat, reps[i], trick_len, win_card, win_seat, leader,
                             trick_index, count_idx, suits_led, beta - 1, beta, &found);
                if (gave_up) break;
#ifdef DEBUG_ROOT
                fprintf(stderr, "card %d beta %d -> %d nodes %lld\n", reps[i], beta, value, x->nodes);
#endif
                if (value < beta)
                    upper = value;
                else
                    lower = value;
            }
            guess = value;
            mask_t g = groups[i];
            while (g) {
                int c = __builtin_ctzll(g);
                g &= g - 1;
                PyObject *pair = Py_BuildValue("(ii)", c, value);
                if (!pair || PyList_Append(result, pair) < 0) {
                    Py_XDECREF(pair);
                    Py_CLEAR(result);
                    goto fail;
                }
                Py_DECREF(pair);
            }
        }
    }
    last_node_count = x->nodes;
    if (gave_up) table_valid = 0; /* entries stored while giving up are not values */
    if (gave_up && result) {
        Py_CLEAR(result);
        result = Py_None;
        Py_INCREF(result);
    }
fail:
    if (!result) table_valid = 0;
    if (!result && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "the position's arguments do not fit together");
    free(x->table);
    free(x->reach_lo);
    free(x->reach_hi);
    free(x);
    return result;
}

static PyObject *dds_last_nodes(PyObject *self, PyObject *args) {
    return PyLong_FromLongLong(last_node_count);
}

static PyObject *dds_clear(PyObject *self, PyObject *args) {
    table_valid = 0;
    Py_RETURN_NONE;
}

#ifdef VERIFY
static PyObject *dds_verified(PyObject *self, PyObject *args) {
    return Py_BuildValue("(LL)", verify_checks, verify_failures);
}
#endif

static PyMethodDef methods[] = {
    {"clear", dds_clear, METH_NOARGS, "Empty the transposition table before the next solve."},
    {"solve", dds_solve, METH_VARARGS, "The value of each legal card (see double_dummy.py)."},
    {"last_nodes", dds_last_nodes, METH_NOARGS, "Nodes searched by the last solve."},
#ifdef VERIFY
    {"verified", dds_verified, METH_NOARGS,
     "Table answers checked against a search without the table, and how many were wrong."},
#endif
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dds",
                                    "The compiled double-dummy solver.", -1, methods};

PyMODINIT_FUNC PyInit__dds(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    fast_cpu = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    if (getenv("KL_DDS_PLAIN")) fast_cpu = 0; /* to measure the portable build */
#endif
    return PyModule_Create(&module);
}
