package io.fedbridge.core.selector;

import io.fedbridge.core.selector.Expr.Type;
import java.util.Set;
import java.util.function.Function;

/**
 * The node classes of a parsed selector. The parser has already checked operand types, so each node
 * coerces without further checks; {@code null} stands for UNKNOWN.
 */
final class Nodes {

    private Nodes() {
    }

    enum ComparisonOp {
        EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

        private final String symbol;

        ComparisonOp(String symbol) {
            this.symbol = symbol;
        }

        String symbol() {
            return symbol;
        }

        boolean isEquality() {
            return this == EQ || this == NE;
        }

        boolean test(long a, long b) {
            return switch (this) {
                case EQ -> a == b;
                case NE -> a != b;
                case LT -> a < b;
                case LE -> a <= b;
                case GT -> a > b;
                case GE -> a >= b;
            };
        }

        boolean test(double a, double b) {
            return switch (this) {
                case EQ -> a == b;
                case NE -> a != b;
                case LT -> a < b;
                case LE -> a <= b;
                case GT -> a > b;
                case GE -> a >= b;
            };
        }

        /** Compares two numbers, exactly when both are longs, else as doubles. */
        Boolean test(Number a, Number b) {
            if (a == null || b == null) {
                return null;
            }
            if (a instanceof Long x && b instanceof Long y) {
                return test(x.longValue(), y.longValue());
            }
            return test(a.doubleValue(), b.doubleValue());
        }
    }

    enum ArithmeticOp {
        ADD("+"), SUBTRACT("-"), MULTIPLY("*"), DIVIDE("/");

        private final String symbol;

        ArithmeticOp(String symbol) {
            this.symbol = symbol;
        }

        String symbol() {
            return symbol;
        }
    }

    // ---------------------------------------------------------------- leaves

    static final class Literal extends Expr {
        static final Literal TRUE = new Literal(Type.BOOLEAN, Boolean.TRUE);
        static final Literal FALSE = new Literal(Type.BOOLEAN, Boolean.FALSE);
        static final Literal NULL = new Literal(Type.NULL, null);

        private final Object value;

        private Literal(Type type, Object value) {
            super(type);
            this.value = value;
        }

        static Literal of(long value) {
            return new Literal(Type.NUMBER, value);
        }

        static Literal of(double value) {
            return new Literal(Type.NUMBER, value);
        }

        static Literal of(String value) {
            return new Literal(Type.STRING, value);
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return value;
        }

        @Override
        Number evaluateNumber(Function<String, String> headers) {
            return value instanceof Number n ? n : null;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            return value instanceof Boolean b ? b : null;
        }
    }

    /** A reference to a STOMP header; its value is the header's string, or {@code null} when absent. */
    static final class HeaderRef extends Expr {
        private final String identifier;
        private final String header;

        /**
         * @param identifier the name as written in the selector
         * @param header     the STOMP header it reads
         */
        HeaderRef(String identifier, String header) {
            super(Type.HEADER);
            this.identifier = identifier;
            this.header = header;
        }

        String identifier() {
            return identifier;
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return headers.apply(header);
        }
    }

    /** {@code JMSDeliveryMode}: derived from the STOMP {@code persistent} header, never absent. */
    static final class DeliveryModeRef extends Expr {
        DeliveryModeRef() {
            super(Type.HEADER);
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return "true".equalsIgnoreCase(headers.apply("persistent")) ? "PERSISTENT" : "NON_PERSISTENT";
        }
    }

    // ---------------------------------------------------------------- logic

    static final class And extends Expr {
        private final Expr[] operands;

        And(Expr... operands) {
            super(Type.BOOLEAN, operands);
            this.operands = operands;
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return evaluateBoolean(headers);
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            boolean unknown = false;
            for (Expr operand : operands) {
                Boolean b = operand.evaluateBoolean(headers);
                if (b == null) {
                    unknown = true;
                } else if (!b) {
                    return Boolean.FALSE;
                }
            }
            return unknown ? null : Boolean.TRUE;
        }
    }

    static final class Or extends Expr {
        private final Expr[] operands;

        Or(Expr... operands) {
            super(Type.BOOLEAN, operands);
            this.operands = operands;
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return evaluateBoolean(headers);
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            boolean unknown = false;
            for (Expr operand : operands) {
                Boolean b = operand.evaluateBoolean(headers);
                if (b == null) {
                    unknown = true;
                } else if (b) {
                    return Boolean.TRUE;
                }
            }
            return unknown ? null : Boolean.FALSE;
        }
    }

    static final class Not extends Expr {
        private final Expr operand;

        Not(Expr operand) {
            super(Type.BOOLEAN, operand);
            this.operand = operand;
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return evaluateBoolean(headers);
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            return Values.not(operand.evaluateBoolean(headers));
        }
    }

    /** Base of the nodes that yield a truth value. */
    abstract static class Predicate extends Expr {
        Predicate(Expr... children) {
            super(Type.BOOLEAN, children);
        }

        @Override
        final Object evaluate(Function<String, String> headers) {
            return evaluateBoolean(headers);
        }

        @Override
        abstract Boolean evaluateBoolean(Function<String, String> headers);
    }

    // ---------------------------------------------------------------- comparisons

    /** Any comparison of numbers; header operands are coerced, and one that is not numeric is UNKNOWN. */
    static final class NumericComparison extends Predicate {
        private final ComparisonOp op;
        private final Expr left;
        private final Expr right;

        NumericComparison(ComparisonOp op, Expr left, Expr right) {
            super(left, right);
            this.op = op;
            this.left = left;
            this.right = right;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Number a = left.evaluateNumber(headers);
            if (a == null) {
                return null;
            }
            return op.test(a, right.evaluateNumber(headers));
        }
    }

    /** {@code =} or {@code <>} between strings (a header compared with a string is a string). */
    static final class StringEquality extends Predicate {
        private final boolean negated;
        private final Expr left;
        private final Expr right;

        StringEquality(boolean negated, Expr left, Expr right) {
            super(left, right);
            this.negated = negated;
            this.left = left;
            this.right = right;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Object a = left.evaluate(headers);
            if (a == null) {
                return null;
            }
            Object b = right.evaluate(headers);
            if (b == null) {
                return null;
            }
            return a.equals(b) != negated;
        }
    }

    /** {@code =} or {@code <>} between truth values; a header is TRUE/FALSE only if it says true/false. */
    static final class BooleanEquality extends Predicate {
        private final boolean negated;
        private final Expr left;
        private final Expr right;

        BooleanEquality(boolean negated, Expr left, Expr right) {
            super(left, right);
            this.negated = negated;
            this.left = left;
            this.right = right;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Boolean a = left.evaluateBoolean(headers);
            if (a == null) {
                return null;
            }
            Boolean b = right.evaluateBoolean(headers);
            if (b == null) {
                return null;
            }
            return a.equals(b) != negated;
        }
    }

    /**
     * {@code =} or {@code <>} between two headers, where nothing says which type is meant: numerically when
     * both values are numbers (so {@code 5} equals {@code 5.0}), else as strings.
     */
    static final class HeaderEquality extends Predicate {
        private final boolean negated;
        private final Expr left;
        private final Expr right;

        HeaderEquality(boolean negated, Expr left, Expr right) {
            super(left, right);
            this.negated = negated;
            this.left = left;
            this.right = right;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Object a = left.evaluate(headers);
            if (a == null) {
                return null;
            }
            Object b = right.evaluate(headers);
            if (b == null) {
                return null;
            }
            Number x = Values.toNumber(a);
            Number y = x == null ? null : Values.toNumber(b);
            if (y != null) {
                return ComparisonOp.EQ.test(x, y) != negated;
            }
            return a.equals(b) != negated;
        }
    }

    /** {@code [NOT] BETWEEN}: {@code v BETWEEN a AND b} is exactly {@code v >= a AND v <= b}. */
    static final class Between extends Predicate {
        private final boolean negated;
        private final Expr value;
        private final Expr low;
        private final Expr high;

        Between(boolean negated, Expr value, Expr low, Expr high) {
            super(value, low, high);
            this.negated = negated;
            this.value = value;
            this.low = low;
            this.high = high;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Number v = value.evaluateNumber(headers);
            if (v == null) {
                return null;
            }
            Boolean aboveLow = ComparisonOp.GE.test(v, low.evaluateNumber(headers));
            Boolean belowHigh = ComparisonOp.LE.test(v, high.evaluateNumber(headers));
            Boolean between;
            if (Boolean.FALSE.equals(aboveLow) || Boolean.FALSE.equals(belowHigh)) {
                between = Boolean.FALSE;
            } else if (aboveLow == null || belowHigh == null) {
                between = null;
            } else {
                between = Boolean.TRUE;
            }
            return negated ? Values.not(between) : between;
        }
    }

    static final class In extends Predicate {
        private final boolean negated;
        private final Expr value;
        private final Set<String> values;

        In(boolean negated, Expr value, Set<String> values) {
            super(value);
            this.negated = negated;
            this.value = value;
            this.values = values;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Object v = value.evaluate(headers);
            if (v == null) {
                return null;
            }
            return values.contains(v) != negated;
        }
    }

    static final class Like extends Predicate {
        private final boolean negated;
        private final Expr value;
        private final LikePattern pattern;

        Like(boolean negated, Expr value, LikePattern pattern) {
            super(value);
            this.negated = negated;
            this.value = value;
            this.pattern = pattern;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            Object v = value.evaluate(headers);
            if (v == null) {
                return null;
            }
            return pattern.matches((String) v) != negated;
        }
    }

    /** {@code IS [NOT] NULL}: never UNKNOWN. */
    static final class IsNull extends Predicate {
        private final boolean negated;
        private final Expr value;

        IsNull(boolean negated, Expr value) {
            super(value);
            this.negated = negated;
            this.value = value;
        }

        @Override
        Boolean evaluateBoolean(Function<String, String> headers) {
            return (value.evaluate(headers) == null) != negated;
        }
    }

    // ---------------------------------------------------------------- arithmetic

    /**
     * Binary arithmetic with numeric promotion: long op long is a long (falling back to double if the
     * result overflows), anything with a double is a double. Division by zero is UNKNOWN.
     */
    static final class Arithmetic extends Expr {
        private final ArithmeticOp op;
        private final Expr left;
        private final Expr right;

        Arithmetic(ArithmeticOp op, Expr left, Expr right) {
            super(Type.NUMBER, left, right);
            this.op = op;
            this.left = left;
            this.right = right;
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return evaluateNumber(headers);
        }

        @Override
        Number evaluateNumber(Function<String, String> headers) {
            Number a = left.evaluateNumber(headers);
            if (a == null) {
                return null;
            }
            Number b = right.evaluateNumber(headers);
            if (b == null) {
                return null;
            }
            if (a instanceof Long x && b instanceof Long y) {
                return exact(x, y);
            }
            return approximate(a.doubleValue(), b.doubleValue());
        }

        private Number exact(long x, long y) {
            try {
                return switch (op) {
                    case ADD -> Math.addExact(x, y);
                    case SUBTRACT -> Math.subtractExact(x, y);
                    case MULTIPLY -> Math.multiplyExact(x, y);
                    case DIVIDE -> {
                        if (y == 0) {
                            yield null;
                        }
                        if (x == Long.MIN_VALUE && y == -1) {
                            yield approximate(x, y); // the one long division that overflows
                        }
                        yield x / y;
                    }
                };
            } catch (ArithmeticException overflow) {
                return approximate(x, y);
            }
        }

        private Number approximate(double x, double y) {
            return switch (op) {
                case ADD -> x + y;
                case SUBTRACT -> x - y;
                case MULTIPLY -> x * y;
                case DIVIDE -> y == 0 ? null : x / y;
            };
        }
    }

    /** Unary minus, or unary plus ({@code negate == false}), which only coerces a header to a number. */
    static final class Sign extends Expr {
        private final boolean negate;
        private final Expr operand;

        Sign(boolean negate, Expr operand) {
            super(Type.NUMBER, operand);
            this.negate = negate;
            this.operand = operand;
        }

        @Override
        Object evaluate(Function<String, String> headers) {
            return evaluateNumber(headers);
        }

        @Override
        Number evaluateNumber(Function<String, String> headers) {
            Number n = operand.evaluateNumber(headers);
            if (n == null || !negate) {
                return n;
            }
            if (n instanceof Long l) {
                return l == Long.MIN_VALUE ? -(double) l : Long.valueOf(-l);
            }
            return -n.doubleValue();
        }
    }
}
