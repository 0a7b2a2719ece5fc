// KingBot.java: a small helper for King League bots in Java (the JDK only), the
// conventions of the Python helper module kingbot carried over.
//
//     KingBot.run(request -> request.legal.get(0));
//
// run() answers "hello" with "ready", calls choose once per request and writes its
// answer, and returns at "end". If choose throws or returns something that is not a legal
// action, run() writes the error to stderr (the league keeps it for you) and plays the
// first legal action instead, with a "fallback" saying why.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class KingBot {
    public static final String RANKS = "23456789TJQKA";

    private KingBot() {}

    /** 0 for a two ... 12 for an ace. */
    public static int rank(String card) {
        return RANKS.indexOf(card.charAt(0));
    }

    public static char suit(String card) {
        return card.charAt(1);
    }

    /** The card of a "play" action ("play QS" -> "QS"), else null. */
    public static String cardOf(String action) {
        return action.startsWith("play ") ? action.substring(5) : null;
    }

    /** Whether card beats the winning card best of a trick whose led suit is led. */
    public static boolean beats(String card, String best, char led, String trump) {
        if (card.charAt(1) == best.charAt(1)) {
            return rank(card) > rank(best);
        }
        return trump != null && card.charAt(1) == trump.charAt(0);
    }

    /** The card that wins the trick so far (its first card was led), or null if empty. */
    public static String winningCard(List<String> trick, String trump) {
        if (trick.isEmpty()) {
            return null;
        }
        String best = trick.get(0);
        for (String card : trick.subList(1, trick.size())) {
            if (beats(card, best, trick.get(0).charAt(1), trump)) {
                best = card;
            }
        }
        return best;
    }

    /** A line on stderr, which the league keeps for the bot's owner. */
    public static void log(String text) {
        System.err.println(text);
        System.err.flush();
    }

    /** One decision: the seat's view, its legal actions and its time, with shortcuts. */
    public static final class Request {
        public final long id;
        public final Map<String, Object> view;
        public final List<String> legal;
        public final Map<String, Object> hello;

        @SuppressWarnings("unchecked")
        Request(Map<String, Object> message, Map<String, Object> hello) {
            this.id = ((Number) message.get("id")).longValue();
            Object view = message.get("view");
            this.view = view instanceof Map ? (Map<String, Object>) view : new LinkedHashMap<>();
            this.legal = strings(message.get("legal"));
            this.hello = hello;
        }

        public int seat() {
            return ((Number) hello.getOrDefault("seat", 0)).intValue();
        }

        public String game() {
            return (String) hello.get("game");
        }

        public List<String> hand() {
            return strings(view.get("hand"));
        }

        public List<String> trick() {
            return strings(view.get("trick"));
        }

        public String trump() {
            Object trump = view.get("trump");
            return trump instanceof String ? (String) trump : null;
        }

        /** The cards of the legal "play" actions (empty when the decision is not a card). */
        public List<String> playableCards() {
            List<String> cards = new ArrayList<>();
            for (String action : legal) {
                String card = cardOf(action);
                if (card != null) {
                    cards.add(card);
                }
            }
            return cards;
        }
    }

    public interface Chooser {
        String choose(Request request) throws Exception;
    }

    public static void run(Chooser chooser) throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        Map<String, Object> hello = new LinkedHashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> message = Json.object(line);
            Object type = message.get("type");
            if ("hello".equals(type)) {
                hello = message;
                out.print("{\"type\":\"ready\"}\n");
            } else if ("request".equals(type)) {
                Request request = new Request(message, hello);
                String action;
                String fallback = null;
                try {
                    action = chooser.choose(request);
                    if (!request.legal.contains(action)) {
                        throw new IllegalStateException(
                                "choose() returned " + action + ", not a legal action");
                    }
                } catch (Exception error) {
                    error.printStackTrace();
                    fallback = "choose() failed: " + error;
                    action = request.legal.get(0);
                }
                StringBuilder answer = new StringBuilder();
                answer.append("{\"id\":").append(request.id);
                answer.append(",\"action\":").append(Json.quote(action));
                if (fallback != null) {
                    String reason = fallback.length() > 200 ? fallback.substring(0, 200) : fallback;
                    answer.append(",\"fallback\":").append(Json.quote(reason));
                }
                out.print(answer.append("}\n"));
            } else if ("end".equals(type)) {
                out.flush();
                return;
            } else {
                continue; // a message type of a later protocol version
            }
            out.flush();
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object value) {
        List<String> result = new ArrayList<>();
        if (value instanceof List) {
            for (Object item : (List<Object>) value) {
                if (item instanceof String) {
                    result.add((String) item);
                }
            }
        }
        return result;
    }

    /** Just enough JSON: objects, arrays, strings, numbers, true, false, null. */
    public static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        @SuppressWarnings("unchecked")
        public static Map<String, Object> object(String text) {
            Object value = new Json(text).value();
            if (!(value instanceof Map)) {
                throw new IllegalArgumentException("not a JSON object: " + text);
            }
            return (Map<String, Object>) value;
        }

        public static String quote(String text) {
            StringBuilder out = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.append('"').toString();
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private Object value() {
            space();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                at++;
                space();
                if (text.charAt(at) == '}') {
                    at++;
                    return map;
                }
                while (true) {
                    space();
                    String key = string();
                    space();
                    at++; // ':'
                    map.put(key, value());
                    space();
                    if (text.charAt(at++) == '}') {
                        return map;
                    }
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                space();
                if (text.charAt(at) == ']') {
                    at++;
                    return list;
                }
                while (true) {
                    list.add(value());
                    space();
                    if (text.charAt(at++) == ']') {
                        return list;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            if (text.startsWith("true", at)) {
                at += 4;
                return Boolean.TRUE;
            }
            if (text.startsWith("false", at)) {
                at += 5;
                return Boolean.FALSE;
            }
            if (text.startsWith("null", at)) {
                at += 4;
                return null;
            }
            int start = at;
            boolean whole = true;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                char d = text.charAt(at++);
                whole &= (d >= '0' && d <= '9') || (d == '-' && at - 1 == start);
            }
            String number = text.substring(start, at);
            return whole ? (Object) Long.parseLong(number) : (Object) Double.parseDouble(number);
        }

        private String string() {
            StringBuilder out = new StringBuilder();
            at++; // the opening quote
            while (true) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u':
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                        break;
                    default: out.append(e);
                }
            }
        }
    }
}
