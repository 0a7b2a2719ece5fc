/* Places among the cards left, for the transposition table's keys (engine/_dds.c).
 *
 * Included twice by engine/_dds.c: once compiled for x86's BMI2 and POPCNT instructions
 * (PLACES_SUFFIX fast, chosen at run time where the processor has them: pext and pdep
 * pack and unpack a hand's bits in one instruction each, popcnt counts them), once for
 * any processor (PLACES_SUFFIX plain). Measured, the first made the whole search about
 * 1.8 times faster (docs/benchmarks.md). */
#define PLACES_CAT2(name, suffix) name##_##suffix
#define PLACES_CAT(name, suffix) PLACES_CAT2(name, suffix)
#define PLACES_NAMED(name) PLACES_CAT(name, PLACES_SUFFIX)

/* `value`'s bits at the places of `mask`'s bits, packed from bit 0 (pext). */
static mask_t PLACES_NAMED(pack_bits)(mask_t value, mask_t mask) {
#ifdef __BMI2__
    return _pext_u64(value, mask);
#else
    mask_t out = 0;
    for (int i = 0; mask; i++) {
        mask_t low = mask & -mask;
        if (value & low) out |= BIT(i);
        mask ^= low;
    }
    return out;
#endif
}

/* The bits of `packed` put back at the places of `mask`'s bits (pdep). */
static mask_t PLACES_NAMED(unpack_bits)(mask_t packed, mask_t mask) {
#ifdef __BMI2__
    return _pdep_u64(packed, mask);
#else
    mask_t out = 0;
    for (int i = 0; mask; i++) {
        mask_t low = mask & -mask;
        if ((packed >> i) & 1) out |= low;
        mask ^= low;
    }
    return out;
#endif
}

/* A position's node key (but its leader, extra and hash) and, at each place, bit b of
 * the holding seat's number. */
static void PLACES_NAMED(key_of)(const Ctx *x, mask_t left, NodeKey *k, mask_t holder[3]) {
    k->shape[0] = k->shape[1] = 0;
    holder[0] = holder[1] = holder[2] = 0;
    for (int s = 0; s < x->n; s++) {
        mask_t places = x->normalize ? PLACES_NAMED(pack_bits)(x->hands[s], left) : x->hands[s];
        for (int b = 0; b < 3; b++)
            if ((s >> b) & 1) holder[b] |= places;
        for (int suit = 0; suit < 4; suit++) {
            int i = s * 4 + suit;
            k->shape[i / 16] |= (uint64_t)__builtin_popcountll(x->hands[s] & SUIT_MASK[suit])
                                << ((i % 16) * 4);
        }
    }
    for (int b = 0; b < 3; b++) k->classes[b] = PLACES_NAMED(pack_bits)(x->class_bits[b], left);
    k->exact = x->normalize ? 0 : left;
}

#undef PLACES_NAMED
#undef PLACES_CAT
#undef PLACES_CAT2
