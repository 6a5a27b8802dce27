package io.fedbridge.core.testing;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyAttributes;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Multiplies the tries of every jqwik property of a class by {@value #FACTOR} when the system property
 * {@code fedbridge.soak=true} is set ({@code mvn test -Dfedbridge.soak=true}; surefire passes it through), so
 * that CI runs a few thousand cases per property and a soak run a hundred thousand or more. Use it with
 * {@code @AddLifecycleHook(SoakTries.class)} on the test class and give each {@code @Property} its CI tries.
 */
public final class SoakTries implements AroundPropertyHook {

    /** The system property that turns on the long runs (the soak tests of other modules read it too). */
    public static final String SOAK_PROPERTY = "fedbridge.soak";
    public static final int FACTOR = 50;

    /** Whether this is a soak run. */
    public static boolean isSoak() {
        return Boolean.getBoolean(SOAK_PROPERTY);
    }

    /** Registered on a test class, it must reach that class's properties. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        if (isSoak()) {
            PropertyAttributes attributes = context.attributes();
            attributes.setTries(attributes.tries().orElse(1000) * FACTOR);
        }
        return property.execute();
    }
}
