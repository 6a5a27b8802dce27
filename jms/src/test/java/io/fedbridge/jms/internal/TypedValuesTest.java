package io.fedbridge.jms.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.MessageFormatException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TypedValuesTest {

    @Test
    void shouldRoundTripEveryType() throws Exception {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("z", true);
        map.put("b", (byte) 1);
        map.put("s", (short) 2);
        map.put("c", 'c');
        map.put("i", 3);
        map.put("l", 4L);
        map.put("f", 5.5f);
        map.put("d", 6.5);
        map.put("t", "text ✓");
        map.put("n", null);
        Map<String, Object> back = TypedValues.decodeMap(TypedValues.encodeMap(map));
        assertThat(back).containsExactlyEntriesOf(map);

        List<Object> list = new ArrayList<>(Arrays.asList(1, "two", null, new byte[] {3}));
        List<Object> again = TypedValues.decodeList(TypedValues.encodeList(list));
        assertThat(again.subList(0, 3)).containsExactly(1, "two", null);
        assertThat((byte[]) again.get(3)).containsExactly(3);
    }

    @Test
    void shouldRefuseAMalformedBodyClearly() {
        assertThatThrownBy(() -> TypedValues.decodeMap(new byte[] {1, 0, 0, 0, 5})).isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("malformed MapMessage body");
        assertThatThrownBy(() -> TypedValues.decodeList(new byte[] {2})).isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> TypedValues.decodeList(new byte[] {1, 99})).hasMessageContaining("unknown value tag 99");
    }

    @Test
    void shouldConvertAsTheSpecTableSays() throws Exception {
        assertThat(TypedValues.toLong((short) 5)).isEqualTo(5L);
        assertThat(TypedValues.toDouble(1.5f)).isEqualTo(1.5);
        assertThat(TypedValues.toBoolean("TRUE")).isTrue();
        assertThatThrownBy(() -> TypedValues.toInt(5L)).isInstanceOf(MessageFormatException.class);
        assertThatThrownBy(() -> TypedValues.toStringValue(new byte[0])).isInstanceOf(MessageFormatException.class);
    }
}
